# Read by ctest after the tests gtest_discover_tests found are defined
# (TEST_INCLUDE_FILES, tests/CMakeLists.txt). The seconds are each test's time
# in a `make test` run on the idle 2-core CI machine (CTestCostData.txt,
# bench/RESULTS.md issue 35 item 4). They become the tests' COST, so the
# longest start first even in a fresh build without cost data, and none is
# left running alone at the end; those over 10 s are `slow` (`ctest -LE slow`
# skips them). The tests outside this binary set theirs where they are added.
set(_stribeck_test_seconds
    IdentificationStream.StreamedFitEqualsTheFitInMemory 18  # the development VM at load 13, 2026-11-29
    Identification.BatteryNoisyIntervalsCoverAtTheNominalRate 43
    StribeckExponentFits.Gms2FromSlowSineSweepAndTriangle 38  # the loaded development VM, 2026-11-29
    GmsElementFits.Gms4FromItsGeneratedSineSweep 25  # the loaded development VM, 2026-11-29
    GmsElementFits.Gms3FromItsGeneratedSineSweep 15  # the loaded development VM, 2026-11-29
    StribeckExponentFits.Gms3AndGms4GetThroughTheirStagesOnASlowSineSweep 9  # CPU-s, the loaded development VM
    Identification.BatteryNoiselessRecoversEveryDeterminableParameter 26
    ShapesCli.ManyExperimentsCostKilobytesEachInImport 19
    ShapesCli.ManyColumnsCostKilobytesEachInImportAndEval 12
    StribeckExponentFits.Gms1FromSlowSineSweepAndTriangle 10  # the loaded development VM, 2026-11-29
    GmsCli.CompareRanksTheElementCountsByAic 10  # 81 s there before its log went to 250 Hz
    EnsembleLanes.EveryModelEqualsTheScalarPath 12  # the VM at load 13 (5.4 CPU-s: `unit`), 2026-11-29
    OutputsCli.TwoIdentifyRunsOnOneFileAtOnceKeepBothResults 7.5
    ReliabilityCli.FilesThatHangTheHdf5LibraryEndWithOneLine 7
    ReliabilityCli.WatchdogEndsOnlyAWatchedCallOnAnInputThatOverrunsTheLimit 6.5
    IdentificationSearch.DefaultFindsTheGlobalOptimumWhereOneStartDoesNot 5)
# list(FIND), not IN_LIST: ctest reads this file without CMake's policies.
# The slow in-process tests get their label from their own discovery
# (tests/CMakeLists.txt): ctest adds a label set here to those it has.
set(_stribeck_tests ${STRIBECK_CLI_TESTS} ${STRIBECK_UNIT_TESTS} ${STRIBECK_SLOW_UNIT_TESTS})
while(_stribeck_test_seconds)
  list(POP_FRONT _stribeck_test_seconds _name _seconds)
  list(FIND _stribeck_tests ${_name} _at)
  if(_at EQUAL -1)
    continue()  # renamed or removed: its cost is only an ordering hint
  endif()
  set_tests_properties(${_name} PROPERTIES COST ${_seconds})
  list(FIND STRIBECK_CLI_TESTS ${_name} _at)
  if(_seconds GREATER 10 AND _at GREATER -1)
    set_tests_properties(${_name} PROPERTIES LABELS slow)
  endif()
endwhile()
# The battery's fits run OpenMP teams on logs of 1e3-3e3 samples, whose idle
# threads spun for a fifth of its CPU time beside another test (ctest -j);
# waiting passively, the same fits give the same counts (noisy: 22.3 -> 17.2
# CPU-s, 1079 of 1154 covered either way; noiseless: 11.0 -> 8.9 CPU-s).
foreach(_name Identification.BatteryNoisyIntervalsCoverAtTheNominalRate
              Identification.BatteryNoiselessRecoversEveryDeterminableParameter)
  list(FIND _stribeck_tests ${_name} _at)
  if(NOT _at EQUAL -1)
    set_tests_properties(${_name} PROPERTIES ENVIRONMENT OMP_WAIT_POLICY=passive)
  endif()
endforeach()
