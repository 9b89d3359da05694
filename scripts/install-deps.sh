#!/usr/bin/env bash
# Install the Debian packages aotrt needs to build, test and benchmark, skipping those present.
set -euo pipefail

packages=(
  cmake make g++ gcc pkg-config        # toolchain
  libdlpack-dev                        # DLTensor & co.
  libdmlc-dev                          # dmlc::Stream for the binary formats
  libspdlog-dev libfmt-dev             # logging
  libxxhash-dev                        # constant cache checksums (header-only)
  opencl-headers                       # the OpenCL driver's declarations (libOpenCL is opened at run time)
  ocl-icd-libopencl1 pocl-opencl-icd   # an OpenCL device on the CPU for the OpenCL tests (pocl)
  libvulkan-dev                        # the Vulkan driver's declarations (libvulkan is opened at run time)
  libvulkan1 mesa-vulkan-drivers       # a Vulkan device on the CPU for the Vulkan tests (lavapipe)
  libgtest-dev                         # tests
  libbenchmark-dev                     # bench/
  libcli11-dev nlohmann-json3-dev      # the aotrt command line; metadata.json of C-interface archives
  libarchive-dev                       # C-interface archives (.tar, .tar.gz, .tar.xz) read in memory
  libminizip-dev zlib1g-dev            # .npz files in the command line (zip, deflate)
  python3 python3-numpy python3-pytest # model generator, Python package and its tests
  python3-pip python3-setuptools python3-wheel  # installing the Python package offline
  python3-dask python3-distributed     # aotrt.dask (optional for users; its tests and bench need it)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "aotrt: installing missing Debian packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "aotrt: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
