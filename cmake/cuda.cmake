# Finds nvcc (PATH, CUDACXX, or /usr/local/cuda) and enables CUDA; without it the
# project still builds everything but the GPU parts, and says so once.
include(CheckLanguage)
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "nvcc")
endif()
check_language(CUDA)
set(GPUFT_HAVE_CUDA OFF)
if(CMAKE_CUDA_COMPILER)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # Every architecture nvcc 13 supports (RTX 20 to 50 series, data-centre parts) + PTX.
    set(CMAKE_CUDA_ARCHITECTURES 75-real 80-real 86-real 89-real 90-real 100-real 120-real 120-virtual)
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit)
  if(CUDAToolkit_FOUND)
    set(GPUFT_HAVE_CUDA ON)
  endif()
endif()
if(NOT GPUFT_HAVE_CUDA)
  message(WARNING "gpuft: no CUDA toolkit (nvcc) found: building without the GPU parts "
                  "(example programs and device kernels); their tests will be skipped.")
endif()
