"""What the tool writes for people and other programs: the `convert` JSON and its schema, the `inspect` table, the
vehicle charts (`plot`), a simulation's plot and USD playback layer (`sim_plot`, `record`), and the `simulate`
command's files."""
