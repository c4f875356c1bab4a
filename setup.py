"""The compiled parts of the simulator, one extension: every physxvehicle_usd/sim/_*.c file (the begin of a step,
the substeps, the row solver and the set-up of its constraint and static contact rows, the end of a step without
contacts, the plane and mesh queries, the quiet bounds, the contacts' narrow phases, friction patches and the rest of
the contact bookkeeping); everything else is in pyproject.toml. The sources and headers are found by name, so a new
C file joins the extension by being there.

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
from pathlib import Path

from setuptools import Extension, setup

flags = ["-O3", "-std=c11", "-ffp-contract=off", "-fno-math-errno", "-fno-trapping-math", "-fno-tree-pre",
         "-fno-tree-sink", "-fopenmp"]
if platform.machine() in ("x86_64", "AMD64"):
    flags += ["-march=native", "-mprefer-vector-width=512"]  # GCC's default stops at 256 bits; no effect without AVX-512
elif platform.machine() in ("aarch64", "arm64"):
    flags.append("-mcpu=native")

# depends: the generated Batch header (tools/generate_kernel_header.py) and the other headers and included blocks
# rebuild the extension when they change, and ship in the sdist
SIM = Path("physxvehicle_usd/sim")
sources = sorted(str(path) for path in SIM.glob("_*.c"))
depends = sorted(str(path) for pattern in ("_*.h", "_*.inl") for path in SIM.glob(pattern))
setup(ext_modules=[Extension("physxvehicle_usd.sim._substeps", sources, depends=depends, extra_compile_args=flags,
                             extra_link_args=["-fopenmp"], libraries=["m"], optional=True)])
