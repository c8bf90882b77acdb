# ft_add_test_runner(target LIST file SOURCES ...): one test executable whose tests are
# declared once in LIST (lines "TEST_ENTRY(name, timeout_s)"); each becomes a CTest test
# "<target>.<name>" run in a forked child with its timeout; exit code 77 means skipped.
# Sanitizer builds are several times slower: FT_TEST_TIMEOUT_SCALE (cache variable,
# default from the environment at configure time) scales every test's limit, both
# ctest's and the runner's (which takes the larger of it and the environment's
# FT_TEST_TIMEOUT_SCALE at run time; ctest's limit knows only the configured one).
if(NOT DEFINED FT_TEST_TIMEOUT_SCALE)
  if(DEFINED ENV{FT_TEST_TIMEOUT_SCALE})
    set(FT_TEST_TIMEOUT_SCALE "$ENV{FT_TEST_TIMEOUT_SCALE}")
  else()
    set(FT_TEST_TIMEOUT_SCALE 1)
  endif()
endif()
set(FT_TEST_TIMEOUT_SCALE "${FT_TEST_TIMEOUT_SCALE}" CACHE STRING "scale of the tests' time limits")
if(FT_TEST_TIMEOUT_SCALE MATCHES "^([0-9]+)(\\.([0-9]*))?$")
  set(FT_TIMEOUT_SCALE_INT ${CMAKE_MATCH_1})
  if(CMAKE_MATCH_3 MATCHES "[1-9]" OR FT_TIMEOUT_SCALE_INT EQUAL 0)
    math(EXPR FT_TIMEOUT_SCALE_INT "${FT_TIMEOUT_SCALE_INT} + 1")
  endif()
else()
  message(FATAL_ERROR "FT_TEST_TIMEOUT_SCALE=${FT_TEST_TIMEOUT_SCALE}: expected a number such as 6")
endif()

# FT_TEST_SIM_CHECK_UB (cache variable, default 0: the environment decides): 1 or 2
# runs every test with SIMCUDA_CHECK_UB set to it (the simulator's undefined-behaviour
# check; 2 fails a launch that has any, docs/simulator.md); programs the tests start
# inherit it.
set(FT_TEST_SIM_CHECK_UB "0" CACHE STRING "SIMCUDA_CHECK_UB for every test (0, 1 or 2)")
if(NOT FT_TEST_SIM_CHECK_UB MATCHES "^[012]$")
  message(FATAL_ERROR "FT_TEST_SIM_CHECK_UB=${FT_TEST_SIM_CHECK_UB}: expected 0, 1 or 2")
endif()

# REAL_DRIVER: the tests also run against a real driver (GPUFT_TEST_DRIVER=real, set by
# tools/gpu-acceptance); without it they skip there with the reason.
function(ft_add_test_runner target)
  cmake_parse_arguments(A "REAL_DRIVER" "LIST" "SOURCES;LIBS;ENV" ${ARGN})
  add_executable(${target} ${A_SOURCES} ${PROJECT_SOURCE_DIR}/tests/runner.c)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests
                             ${CMAKE_CURRENT_SOURCE_DIR})
  get_filename_component(listabs ${A_LIST} ABSOLUTE)
  target_compile_definitions(${target} PRIVATE FT_TEST_LIST="${listabs}"
                             FT_TIMEOUT_SCALE_CONFIG=${FT_TEST_TIMEOUT_SCALE})
  target_link_libraries(${target} PRIVATE ${A_LIBS} Threads::Threads)
  if(A_REAL_DRIVER) # its tests also run with GPUFT_TEST_DRIVER=real (tests/runner.c)
    target_compile_definitions(${target} PRIVATE FT_TEST_REAL_DRIVER_OK=1)
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${listabs})
  file(STRINGS ${listabs} lines REGEX "^[ \t]*TEST_ENTRY\\(")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "TEST_ENTRY\\([ \t]*([A-Za-z0-9_]+)[ \t]*,[ \t]*([0-9]+)" _ "${line}")
    set(name ${CMAKE_MATCH_1})
    set(tmo ${CMAKE_MATCH_2})
    add_test(NAME ${target}.${name} COMMAND ${target} ${name})
    # ctest's own limit follows the runner's scaled one (FT_TEST_TIMEOUT_SCALE, read
    # at configure time, rounded up), with a margin for the runner itself.
    math(EXPR ctest_tmo "${tmo} * ${FT_TIMEOUT_SCALE_INT} + 30")
    set_tests_properties(${target}.${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT ${ctest_tmo})
    # Permanent faults the tests provoke go to a fresh error history per test in the
    # build tree (tests/runner.c), never to the user's (~/.cache/gpuft, docs/gpu.md).
    set(ub_env "")
    if(NOT FT_TEST_SIM_CHECK_UB STREQUAL "0")
      set(ub_env "SIMCUDA_CHECK_UB=${FT_TEST_SIM_CHECK_UB};")
    endif()
    set_tests_properties(${target}.${name} PROPERTIES
      ENVIRONMENT "FT_TEST_HISTORY_ROOT=${CMAKE_BINARY_DIR}/test-history;${ub_env}${A_ENV}")
  endforeach()
endfunction()

# Appends APP_<NAME>="<path>" compile definitions for the example programs of
# tests/apps that are built (none without nvcc) to the list variable `out`.
function(ft_app_defs out)
  set(defs ${${out}})
  foreach(app vecadd sgemm jacobi multistream multistream_ptds simplestreams userpatterns pool)
    if(TARGET ${app})
      string(TOUPPER ${app} up)
      list(APPEND defs APP_${up}="$<TARGET_FILE:${app}>")
    endif()
  endforeach()
  set(${out} ${defs} PARENT_SCOPE)
endfunction()
