# check_run.cmake: CTest driver of `bench/run --sim --quick`: it must exit 0 and print
# a table with an overhead ratio for each workload (PASS_REGULAR_EXPRESSION alone
# would ignore the exit code).
set(lib_args "")
if(SAN_RUNTIME) # a sanitized libgpuft.so needs its runtime preloaded first
  set(lib_args --lib "${SAN_RUNTIME}:${BUILD}/lib/libgpuft.so")
endif()
execute_process(COMMAND ${PYTHON} ${RUN} --sim --quick --build-dir ${BUILD} ${lib_args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(err)
  message("stderr:\n${err}")
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench/run --sim --quick exited with ${rc}")
endif()
foreach(bench matmul fft3d pool)
  if(NOT out MATCHES "${bench}[^\n]*\n([^\n]*\n)*[^\n]*[0-9]+\\.[0-9]+x")
    message(FATAL_ERROR "no ${bench} table with ratios in the output")
  endif()
endforeach()
