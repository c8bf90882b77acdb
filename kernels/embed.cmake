# embed.cmake: cmake -P script writing a binary file as a C byte array.
#   cmake -DIN=<file> -DOUT=<file.c> -DNAME=<symbol> -P embed.cmake
# Defines `const unsigned char NAME[]` (16-byte aligned, as the driver wants images)
# and `const size_t NAME_size`.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" nhex)
math(EXPR n "${nhex} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
# Break the single line every 16 bytes to keep compilers and diffs happy.
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" body "${body}")
file(WRITE "${OUT}.tmp"
  "/* Generated from ${IN} by kernels/embed.cmake: do not edit. */\n"
  "#include <stddef.h>\n"
  "__attribute__((aligned(16))) const unsigned char ${NAME}[${n}] = {\n${body}\n};\n"
  "const size_t ${NAME}_size = ${n};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
