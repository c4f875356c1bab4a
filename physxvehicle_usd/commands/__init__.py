"""The command line's commands, a module per group of them; cli.py registers them."""
