# CTest Package.FindPackageBuildsAndRunsAConsumer (cmake -P): installs the
# build tree into a scratch prefix, configures and builds tests/package/consumer
# against it with find_package(stribeck), runs it and checks what it prints.
# Inputs: BUILD_DIR, CONSUMER_DIR, WORK_DIR, CXX_COMPILER, CXX_LAUNCHER, CONFIG, VERSION.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})

# What the install must hold.
foreach(f bin/stribeck include/stribeck/kernels/registry.hpp include/stribeck/data/units.hpp
          include/stribeck/host/version.hpp include/stribeck/identification/fit.hpp
          share/doc/stribeck/LICENSE share/doc/stribeck/NOTICE)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()
file(GLOB_RECURSE configs ${prefix}/*/stribeckConfig.cmake ${prefix}/*/stribeckConfigVersion.cmake)
list(LENGTH configs n)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "expected stribeckConfig.cmake and stribeckConfigVersion.cmake under ${prefix}, found: ${configs}")
endif()
run("installed stribeck --version" ${prefix}/bin/stribeck --version)
if(NOT run_out MATCHES "${VERSION}")
  message(FATAL_ERROR "installed stribeck --version printed '${run_out}', expected ${VERSION}")
endif()

set(launcher)
if(CXX_LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER})
endif()
run("configuring the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${build} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} ${launcher})
run("building the consumer" ${CMAKE_COMMAND} --build ${build})
run("running the consumer" ${build}/consumer)
message(STATUS "consumer printed:\n${run_out}")

# Independent values: F = 20 + 100*0.25 = 45 N; 1 uN = 1e-06 N; the fit of
# noise-free data returns the parameters it was sampled with.
foreach(expected "stribeck ${VERSION} \\(${prefix}/bin/stribeck\\)" "model coulomb-viscous: 3 parameters"
                 "force at 0.25 m/s: 45 N" "1 uN = 1e-06 N" "fit F_C = 20 N" "fit f_v = 100 N/\\(m/s\\)")
  if(NOT run_out MATCHES "${expected}")
    message(FATAL_ERROR "the consumer's output lacks '${expected}'")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
