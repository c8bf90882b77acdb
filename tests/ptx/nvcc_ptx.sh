#!/bin/sh
# nvcc_ptx.sh NVCC OUT SRC [OPTIONS...]: the PTX of SRC into OUT. When nvcc
# cannot compile SRC here, OUT is empty and OUT.err holds nvcc's message.
nvcc=$1
out=$2
src=$3
shift 3
rm -f "$out.err"
if "$nvcc" -ptx -arch=compute_75 "$@" "$src" -o "$out" 2> "$out.err"; then
  rm -f "$out.err"
else
  : > "$out"
fi
exit 0
