"""The compiled substeps of the simulator (physxvehicle_usd/sim/_substeps.c); everything else is in pyproject.toml.

-ffast-math lets GCC vectorise the wheel loop with glibc's vector math (libmvec); it is a compile flag only, so
the library does not switch the process to flush-to-zero. -fno-tree-pre: GCC's partial-redundancy pass turns the kernel's selects on "wheel on the ground" into masked
loads that its vectoriser then refuses. -march=native: the package is built where it runs.
The extension is optional: without a C compiler the simulator runs its numpy kernels.
"""
import platform

from setuptools import Extension, setup

flags = ["-O3", "-ffast-math", "-ffp-contract=off", "-fno-associative-math", "-fno-reciprocal-math", "-fopenmp",
         "-fno-tree-pre", "-std=c11"]
libraries = ["m"]
if platform.system() == "Linux":
    libraries.insert(0, "mvec")  # glibc's vector math, what the vectorised atan, tan, cos and asin call
if platform.machine() in ("x86_64", "AMD64", "aarch64", "arm64"):
    flags.append("-march=native" if platform.machine() in ("x86_64", "AMD64") else "-mcpu=native")

setup(ext_modules=[Extension("physxvehicle_usd.sim._substeps", ["physxvehicle_usd/sim/_substeps.c"],
                             extra_compile_args=flags, extra_link_args=["-fopenmp"], libraries=libraries, optional=True)])
