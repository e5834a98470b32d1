"""Build of the gpukit extension (gpukit._gpukit) with cffi.

The C library is the three headers at the top of the repository. A build
from the checkout copies them into python/_vendor/ first, so the sdist
carries them and a build from the sdist (or from a copy of python/ made by
an older pip) finds them there; gpukit_build.py reads only _vendor/.
"""
import os
import shutil

from setuptools import setup
from setuptools.command.sdist import sdist

HERE = os.path.dirname(os.path.abspath(__file__))
HEADERS = ("gpukit.h", "gpukit_llm.h", "gpukit_kernels.h")


def vendor_headers():
    repo = os.path.dirname(HERE)
    vendor = os.path.join(HERE, "_vendor")
    if all(os.path.isfile(os.path.join(repo, h)) for h in HEADERS):
        os.makedirs(vendor, exist_ok=True)
        for h in HEADERS:
            src, dst = os.path.join(repo, h), os.path.join(vendor, h)
            if not os.path.exists(dst) or open(src, "rb").read() != open(dst, "rb").read():
                shutil.copyfile(src, dst)
    missing = [h for h in HEADERS if not os.path.isfile(os.path.join(vendor, h))]
    if missing:
        raise SystemExit("gpukit: %s not found in %s or in the repository above it" % (", ".join(missing), vendor))


class Sdist(sdist):
    def run(self):
        vendor_headers()
        sdist.run(self)


vendor_headers()
# the extension uses the stable ABI only (cffi compiles it with Py_LIMITED_API): one wheel for CPython 3.8+
setup(cffi_modules=["gpukit_build.py:ffibuilder"], cmdclass={"sdist": Sdist}, zip_safe=False,
      options={"bdist_wheel": {"py_limited_api": "cp38"}})
