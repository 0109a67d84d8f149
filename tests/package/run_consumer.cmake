# CTest Package.* (cmake -P): installs the build tree into a scratch prefix,
# configures and builds tests/package/consumer against it with
# find_package(stribeck), runs it and checks what it prints; the same by
# pkg-config's flags. With SHARED (a BUILD_SHARED_LIBS build) the consumer is
# configured and built as on a machine without the CUDA toolkit, MPI, Ceres
# or OpenMP: nvcc off the PATH, those packages unfindable, and neither its
# configuration (no C or CUDA language) nor its link line may need them.
# Inputs: BUILD_DIR, CONSUMER_DIR, WORK_DIR, CXX_COMPILER, CXX_LAUNCHER, CONFIG, VERSION, SHARED.
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
          include/stribeck/workloads/version.hpp include/stribeck/engine/runner.hpp include/stribeck/identification/fit.hpp
          share/doc/stribeck/LICENSE share/doc/stribeck/NOTICE share/doc/stribeck/cli.md
          share/doc/stribeck/architecture.md share/doc/stribeck/sweep.md share/stribeck/slurm/submit-array.sh
          share/stribeck/slurm/shard.sbatch share/stribeck/slurm/merge.sbatch share/stribeck/slurm/mpi.sbatch)
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
set(hidden)  # `cmake -E env` arguments of the consumer's configure and build
set(no_packages)
if(SHARED)
  file(GLOB_RECURSE sonames ${prefix}/*/libstribeck_workloads.so.*.*)
  if(NOT sonames)
    message(FATAL_ERROR "SHARED, but no versioned libstribeck_workloads.so.X.Y under ${prefix}")
  endif()
  # PATH without any directory holding nvcc; the CUDA locations unset.
  string(REPLACE ":" ";" path_dirs "$ENV{PATH}")
  set(kept)
  foreach(d IN LISTS path_dirs)
    if(NOT EXISTS ${d}/nvcc)
      list(APPEND kept ${d})
    endif()
  endforeach()
  list(JOIN kept ":" kept)
  set(hidden --unset=CUDACXX --unset=CUDA_PATH --unset=CUDA_HOME --unset=CUDAToolkit_ROOT "PATH=${kept}")
  foreach(p CUDAToolkit CUDA MPI Ceres Eigen3 OpenMP HDF5 nlohmann_json tomlplusplus ZLIB)
    list(APPEND no_packages -DCMAKE_DISABLE_FIND_PACKAGE_${p}=ON)
  endforeach()
endif()
run("configuring the consumer" ${CMAKE_COMMAND} -E env ${hidden} ${CMAKE_COMMAND} -G "Unix Makefiles"
    -S ${CONSUMER_DIR} -B ${build} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} ${launcher} ${no_packages})
run("building the consumer" ${CMAKE_COMMAND} -E env ${hidden} ${CMAKE_COMMAND} --build ${build} --verbose)
if(SHARED)
  file(STRINGS ${build}/CMakeCache.txt languages REGEX "^CMAKE_(C|CUDA)_COMPILER:")
  if(languages)
    message(FATAL_ERROR "find_package(stribeck) enabled another language in a C++ consumer: ${languages}")
  endif()
  # The link line as the build ran it (--verbose): the stribeck libraries and
  # HDF5, nothing of CUDA, MPI, Ceres or OpenMP.
  if(NOT run_out MATCHES "libstribeck_workloads\\.so")
    message(FATAL_ERROR "the consumer was not linked against libstribeck_workloads.so:\n${run_out}")
  endif()
  if(run_out MATCHES "(cudart|libmpi|-lmpi|ceres|glog|gomp|-fopenmp)[^\n]*")
    message(FATAL_ERROR "the consumer's build names '${CMAKE_MATCH_0}':\n${run_out}")
  endif()
endif()
# Independent values: F = 20 + 100*0.25 = 45 N; 1 uN = 1e-06 N; the fit of
# noise-free data returns the parameters it was sampled with.
function(check_consumer what)
  run("running ${what}" ${ARGN})
  message(STATUS "${what} printed:\n${run_out}")
  foreach(expected "stribeck ${VERSION} \\(${prefix}/bin/stribeck\\)" "model coulomb-viscous: 3 parameters"
                   "force at 0.25 m/s: 45 N" "1 uN = 1e-06 N" "fit F_C = 20 N" "fit f_v = 100 N/\\(m/s\\)")
    if(NOT run_out MATCHES "${expected}")
      message(FATAL_ERROR "the output of ${what} lacks '${expected}'")
    endif()
  endforeach()
endfunction()
check_consumer("the consumer" ${build}/consumer)

# The same program built without CMake, by the flags of the installed
# stribeck.pc alone (pkg-config --cflags --libs).
file(GLOB_RECURSE pcs ${prefix}/*/pkgconfig/stribeck.pc)
list(LENGTH pcs n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one pkgconfig/stribeck.pc under ${prefix}, found: ${pcs}")
endif()
get_filename_component(pcdir ${pcs} DIRECTORY)
run("pkg-config" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pcdir} pkg-config --cflags --libs stribeck)
if(SHARED AND run_out MATCHES "(cudart|mpi|ceres|glog|gomp|-fopenmp)[^ ]*")
  message(FATAL_ERROR "stribeck.pc of shared libraries names '${CMAKE_MATCH_0}': ${run_out}")
endif()
separate_arguments(pc_flags UNIX_COMMAND "${run_out}")
run("building the consumer with pkg-config's flags" ${CMAKE_COMMAND} -E env ${hidden} ${CXX_COMPILER} -std=c++17
    ${CONSUMER_DIR}/consumer.cpp "-DSTRIBECK_EXECUTABLE=\"${prefix}/bin/stribeck\"" -o ${WORK_DIR}/consumer-pc ${pc_flags})
# The libraries' directory for the loader (pkg-config gives no RPATH).
check_consumer("the consumer built with pkg-config" ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${pcdir}/..
               ${WORK_DIR}/consumer-pc)
file(REMOVE_RECURSE ${WORK_DIR})
