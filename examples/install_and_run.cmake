# The ctest `example_find_package`: installs the lowp of LOWP_BUILD_DIR into a fresh prefix, builds
# this folder's example against that prefix alone with find_package(lowp), and runs it.
# usage: cmake -DLOWP_BUILD_DIR=<lowp build> -DWORK_DIR=<scratch> [-DGENERATOR=Ninja] -P install_and_run.cmake
foreach(var LOWP_BUILD_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "install_and_run.cmake needs -D${var}=...")
  endif()
endforeach()
if(NOT GENERATOR)
  set(GENERATOR "Unix Makefiles")
endif()

# Runs a command; stops the test with its output when it fails. Leaves the output in `output`.
function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
run_step(${CMAKE_COMMAND} --install "${LOWP_BUILD_DIR}" --prefix "${prefix}")
# The installed package only: no package registry, no build tree.
run_step(${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
file(STRINGS "${WORK_DIR}/build/CMakeCache.txt" lowp_dir REGEX "^lowp_DIR:")
string(FIND "${lowp_dir}" "${prefix}/" at)
if(NOT at GREATER -1)
  message(FATAL_ERROR "find_package(lowp) found ${lowp_dir}, not the package installed in ${prefix}")
endif()
run_step(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run_step("${WORK_DIR}/build/quantize_host")
message("${output}")
if(NOT output MATCHES "fp8_e4m3 current: .*nvfp4 per-token: .*example: ok")
  message(FATAL_ERROR "the example's output lacks its FP8 and NVFP4 lines")
endif()
