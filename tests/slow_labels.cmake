# Read by ctest after the tests gtest_discover_tests found are defined
# (TEST_INCLUDE_FILES, tests/CMakeLists.txt): adds the label `slow` to the
# tests that take over 10 s on the 2-core CI machine, so `ctest -LE slow`
# skips them.
foreach(t IN LISTS STRIBECK_CLI_TESTS)
  if(t MATCHES "^(KillResume|Examples|ShapesCli)\\." OR t STREQUAL "OutputsCli.TwoIdentifyRunsOnOneFileAtOnceKeepBothResults")
    set_tests_properties(${t} PROPERTIES LABELS "cli;slow")
  endif()
endforeach()
foreach(t IN LISTS STRIBECK_UNIT_TESTS)
  if(t STREQUAL "SweepMetrics.StatefulModelsMatchAnOdeReference" OR t MATCHES "^IdentificationStream\\.(StreamedFit|LongLog)")
    set_tests_properties(${t} PROPERTIES LABELS "unit;slow")
  endif()
endforeach()
