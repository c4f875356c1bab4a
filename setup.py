"""The compiled substeps of the simulator (physxvehicle_usd/sim/_substeps.c), its row solver (_row_solver.c), the
end of a step without contacts (_end_step.c), its begin (_step_begin.c) and the mesh queries (_mesh_queries.c), one
extension; everything else is in pyproject.toml.

Flags:
- -ffp-contract=off: IEEE arithmetic in the written order, no fused multiply-adds (which the scalar remainder
  of a vectorised loop would not share);
- -fno-math-errno, -fno-trapping-math: let GCC vectorise sqrt and the selects;
- -fno-tree-pre, -fno-tree-sink: GCC's partial-redundancy and sinking passes turn the kernel's selects (on
  "wheel on the ground", "vehicle active") into masked loads that its vectoriser then refuses;
- -fopenmp: `#pragma omp simd`, and the threads of Simulator(threads=);
- -march=native: the package is built where it runs.
The extension is optional: without a C compiler the simulator runs its numpy kernels.
"""
import platform

from setuptools import Extension, setup

flags = ["-O3", "-std=c11", "-ffp-contract=off", "-fno-math-errno", "-fno-trapping-math", "-fno-tree-pre",
         "-fno-tree-sink", "-fopenmp"]
if platform.machine() in ("x86_64", "AMD64"):
    flags += ["-march=native", "-mprefer-vector-width=512"]  # GCC's default stops at 256 bits; no effect without AVX-512
elif platform.machine() in ("aarch64", "arm64"):
    flags.append("-mcpu=native")

# depends: the generated Batch header (tools/generate_kernel_header.py) and the row solver's header rebuild the
# extension when they change, and ship in the sdist
setup(ext_modules=[Extension("physxvehicle_usd.sim._substeps", ["physxvehicle_usd/sim/_substeps.c",
                                                                "physxvehicle_usd/sim/_row_solver.c",
                                                                "physxvehicle_usd/sim/_end_step.c",
                                                                "physxvehicle_usd/sim/_step_begin.c",
                                                                "physxvehicle_usd/sim/_plane_rays.c",
                                                                "physxvehicle_usd/sim/_mesh_queries.c"],
                             depends=["physxvehicle_usd/sim/_substeps_batch.h", "physxvehicle_usd/sim/_row_solver.h"],
                             extra_compile_args=flags,
                             extra_link_args=["-fopenmp"], libraries=["m"], optional=True)])
