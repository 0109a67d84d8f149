# The per-instruction-set objects of the CPU sweep's SIMD lanes must define no
# weak (shared, mergeable) symbol: the linker keeps one copy of each, and an
# AVX-512 copy would then be called on processors without AVX-512. Everything
# there is inlined or in a level-specific namespace (workloads/src/lanes/).
# Usage: cmake -DNM=nm -DOBJECTS="a.o;b.o" -P check_lanes_objects.cmake
foreach(obj IN LISTS OBJECTS)
  execute_process(COMMAND ${NM} --defined-only -C ${obj} OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${obj}")
  endif()
  string(REGEX MATCHALL "[^\n]* [WwVvu] [^\n]*" weak "${syms}")
  if(weak)
    string(REPLACE ";" "\n" weak "${weak}")
    message(FATAL_ERROR "${obj} defines weak symbols the linker could share across instruction sets:\n${weak}")
  endif()
  string(REGEX MATCHALL "[^\n]* T [^\n]*" global "${syms}")
  if(NOT global)
    message(FATAL_ERROR "${obj} defines no lane kernels")
  endif()
endforeach()
message(STATUS "lane objects checked: ${OBJECTS}")
