#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS POST_BUILD (cwd: the build directory, about to be deleted): keep
# Module.symvers next to the built module, in DKMS's tree ($1).
set -e
[ -s Module.symvers ] || { echo "keep-symvers: no Module.symvers in $(pwd)" >&2; exit 1; }
mkdir -p "$1"
cp Module.symvers "$1/Module.symvers"
echo "keep-symvers: $1/Module.symvers"
