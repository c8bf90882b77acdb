# Checks every build dependency at once, before anything needs one, and reports all
# the missing ones in one message with the command that installs them. The package
# list has one home: tools/dev/install-deps (README's set-up and .ci/run run it).
include(CheckLanguage)
set(ft_missing "")
foreach(lang C CXX)
  check_language(${lang})
  if(NOT CMAKE_${lang}_COMPILER)
    string(TOLOWER "${lang}" l)
    list(APPEND ft_missing "a ${l} compiler (gcc, g++)")
  endif()
endforeach()
find_package(PkgConfig QUIET)
# module (pkg-config name) and what it is for
set(ft_modules "libzstd\;zstd-compressed PTX in CUDA 13 binaries"
               "liblz4\;LZ4-compressed PTX"
               "jansson\;the tools' JSON reader")
foreach(m IN LISTS ft_modules)
  list(GET m 0 mod)
  list(GET m 1 why)
  string(MAKE_C_IDENTIFIER "FT_DEP_${mod}" var)
  if(PkgConfig_FOUND)
    pkg_check_modules(${var} QUIET ${mod})
  endif()
  if(NOT ${var}_FOUND)
    list(APPEND ft_missing "${mod} (${why})")
  endif()
endforeach()
if(NOT PkgConfig_FOUND)
  list(PREPEND ft_missing "pkg-config (finds the libraries below)")
endif()
if(ft_missing)
  file(STRINGS ${PROJECT_SOURCE_DIR}/tools/dev/install-deps ft_pkgs REGEX "^packages=")
  string(REGEX REPLACE "^packages=\"(.*)\"$" "\\1" ft_pkgs "${ft_pkgs}")
  list(JOIN ft_missing "\n  - " ft_list)
  message(FATAL_ERROR "gpuft: missing build dependencies:\n  - ${ft_list}\n"
    "Install everything gpuft needs with one command (Debian/Ubuntu):\n"
    "  tools/dev/install-deps\n"
    "which runs: apt-get install ${ft_pkgs}\n"
    "(Fedora: dnf install gcc gcc-c++ pkgconf libzstd-devel lz4-devel jansson-devel)")
endif()
