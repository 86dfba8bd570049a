# CUTLASS's C++ headers (PyPI nvidia-cutlass, fetched by scripts/fetch-cutlass.sh) as the
# INTERFACE IMPORTED target lowp::cutlass_headers, required by CUDA builds. LOWP_CUTLASS_DIR is
# the folder holding cutlass/ and cute/; unset, the fetch script's places are searched:
# $LOWP_CACHE_DIR, $HOME/.cache/lowp, then the tree's .deps/.
set(LOWP_CUTLASS_VERSION 4.2.0.0)
set(LOWP_CUTLASS_DIR "" CACHE PATH "Folder holding CUTLASS's cutlass/ and cute/ headers (see scripts/fetch-cutlass.sh)")

function(lowp_find_cutlass)
  set(dir "${LOWP_CUTLASS_DIR}")
  if(NOT dir)
    set(caches "$ENV{LOWP_CACHE_DIR}" "$ENV{HOME}/.cache/lowp" "${PROJECT_SOURCE_DIR}/.deps")
    foreach(cache IN LISTS caches)
      set(candidate "${cache}/cutlass-${LOWP_CUTLASS_VERSION}/cutlass_library/source/include")
      if(cache AND EXISTS "${candidate}/cutlass/cutlass.h")
        set(dir "${candidate}")
        break()
      endif()
    endforeach()
  endif()
  if(NOT dir OR NOT EXISTS "${dir}/cutlass/cutlass.h" OR NOT EXISTS "${dir}/cute/tensor.hpp")
    message(FATAL_ERROR
      "CUTLASS ${LOWP_CUTLASS_VERSION} headers not found (the CUDA backend's NVFP4 GEMM needs them): run "
      "scripts/fetch-cutlass.sh, or pass -DLOWP_CUTLASS_DIR=<folder holding cutlass/ and cute/>, or build "
      "without CUDA (-DLOWP_CUDA=OFF). LOWP_CUTLASS_DIR is '${LOWP_CUTLASS_DIR}'.")
  endif()
  # Imported targets' include folders are system includes: CUTLASS's warnings do not fail -Werror.
  add_library(lowp::cutlass_headers INTERFACE IMPORTED GLOBAL)
  target_include_directories(lowp::cutlass_headers INTERFACE "${dir}")
  message(STATUS "lowp: CUTLASS headers ${dir}")
endfunction()
