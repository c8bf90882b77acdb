# check_hints_plot.cmake: CTest driver for bench/run's user-facing edges: without a GPU
# it says to use --sim (checked only where no GPU is visible), and --plot writes a
# non-empty PNG from a real simulator run (matplotlib is installed by .ci/run).
if(NOT EXISTS /dev/nvidia0)
  execute_process(COMMAND ${PYTHON} ${RUN} --quick --build-dir ${BUILD}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "bench/run --sim")
    message(FATAL_ERROR "without a GPU, bench/run should fail and suggest --sim (rc ${rc}):\n${err}")
  endif()
endif()
set(lib_args "")
if(SAN_RUNTIME)
  set(lib_args --lib "${SAN_RUNTIME}:${BUILD}/lib/libgpuft.so")
endif()
set(png ${BUILD}/bench/bench_run_plot.png)
file(REMOVE ${png})
execute_process(COMMAND ${PYTHON} ${RUN} --sim --quick --only matmul --plot ${png} --build-dir ${BUILD} ${lib_args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench/run --sim --quick --plot exited with ${rc}:\n${err}")
endif()
file(SIZE ${png} size)
file(READ ${png} magic LIMIT 8 HEX)
if(size LESS 10000 OR NOT magic STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "${png}: not a PNG with a plot (${size} bytes, starts ${magic})")
endif()
message("plot: ${png}, ${size} bytes")
