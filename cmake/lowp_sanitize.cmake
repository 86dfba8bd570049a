# LOWP_SANITIZE: a comma-separated list of -fsanitize= values for the whole build (library, CLI,
# tests), e.g. "address,undefined" or "thread". CPU-only: the sanitizers instrument host code,
# and CUDA device code is checked by compute-sanitizer instead (scripts/gpu-check.sh). Every
# report is fatal (-fno-sanitize-recover=all), so a test that triggers one fails.
set(LOWP_SANITIZE "" CACHE STRING "Build with -fsanitize=<list> (e.g. address,undefined or thread); CPU-only builds")

function(lowp_apply_sanitizers)
  if(NOT LOWP_SANITIZE)
    return()
  endif()
  if(LOWP_WITH_CUDA)
    message(FATAL_ERROR "LOWP_SANITIZE=${LOWP_SANITIZE} needs a CPU-only build: pass -DLOWP_CUDA=OFF "
                        "(device code is checked with compute-sanitizer, scripts/gpu-check.sh)")
  endif()
  if(LOWP_SANITIZE MATCHES "thread" AND LOWP_SANITIZE MATCHES "address")
    message(FATAL_ERROR "LOWP_SANITIZE: thread and address cannot be combined (two builds)")
  endif()
  if(LOWP_WERROR)
    # GCC's flow warnings (-Wstringop-overflow, -Warray-bounds) see the sanitizers' checks as
    # impossible sizes and fail the build; the plain -Werror build is where warnings are judged.
    message(STATUS "lowp: LOWP_WERROR has no effect with LOWP_SANITIZE (false positives under -fsanitize)")
  endif()
  set(flags -fsanitize=${LOWP_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer -g1)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${flags}>")
  add_link_options(-fsanitize=${LOWP_SANITIZE})
  message(STATUS "lowp: sanitizers ${LOWP_SANITIZE}")
endfunction()
