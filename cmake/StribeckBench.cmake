# stribeck_needs_cli(TARGET): building TARGET builds the CLI too (it runs
# it). With Ninja only the link waits for the CLI: a target dependency would
# hold every object of TARGET back until the CLI, so until the CUDA kernels,
# were built. Makefiles order whole targets anyway.
function(stribeck_needs_cli target)
  if(CMAKE_GENERATOR MATCHES "Ninja")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${PROJECT_BINARY_DIR}/bin/stribeck)
  else()
    add_dependencies(${target} stribeck)
  endif()
endfunction()

# stribeck_add_benchmark(NAME): the benchmark program bench/NAME.cpp, written
# to bin/ next to the CLI it may drive. Used by bench/ (STRIBECK_BENCH=ON: all
# of them) and by tests/ (those the Peers.* tests run), once per program.
function(stribeck_add_benchmark name)
  if(TARGET ${name})
    return()
  endif()
  add_executable(${name} ${PROJECT_SOURCE_DIR}/bench/${name}.cpp)
  target_link_libraries(${name} PRIVATE stribeck::workloads stribeck::identification OpenMP::OpenMP_CXX)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
  # Benchmarks that drive the CLI or a peer script find them through these.
  target_compile_definitions(${name} PRIVATE STRIBECK_CLI="$<TARGET_FILE:stribeck>"
                             STRIBECK_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  stribeck_needs_cli(${name})
endfunction()
