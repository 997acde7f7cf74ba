# The SDK test (ctest: sdk.out_of_tree_plugins), run as `cmake -P`:
#  1. installs the current build tree into a fresh prefix;
#  2. checks the prefix: CLI, library, public headers only, CMake package,
#     tessera.pc;
#  3. builds tests/sdk/header_check (every header alone, ABI checks) and both
#     example plugins against that prefix alone, then installs the examples;
#  4. loads them with --plugin-path, compiles kernels through pipelines that
#     use both, runs the NumPy output and compares it with the reference;
#  5. checks that op-stats' own property (`op_counted`) is verified by
#     verify-each through the verifier the plugin registered.
# Every command is echoed so a failure can be replayed by hand.
#
# Inputs (-D): SOURCE_DIR BUILD_DIR WORK_DIR GENERATOR MAKE_PROGRAM
#              CXX_COMPILER PYTHON ABI_VERSION PKG_CONFIG NM
cmake_minimum_required(VERSION 3.25)

function(run)
  cmake_parse_arguments(ARG "EXPECT_FAILURE" "OUTPUT;ENV" "" ${ARGN})
  string(REPLACE ";" " " _shown "${ARG_UNPARSED_ARGUMENTS}")
  message(STATUS "$ ${_shown}")
  set(_command ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_ENV)
    set(_command "${CMAKE_COMMAND}" -E env ${ARG_ENV} ${_command})
  endif()
  execute_process(COMMAND ${_command}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(ARG_EXPECT_FAILURE)
    if(_rc EQUAL 0)
      message(FATAL_ERROR "expected a failure, got success:\n${_out}${_err}")
    endif()
  elseif(NOT _rc EQUAL 0)
    message(FATAL_ERROR "failed (${_rc}):\n${_out}${_err}")
  endif()
  if(ARG_OUTPUT)
    set(${ARG_OUTPUT} "${_out}${_err}" PARENT_SCOPE)
  endif()
endfunction()

function(expect_match text regex what)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected /${regex}/ in:\n${text}")
  endif()
endfunction()

set(PREFIX "${WORK_DIR}/prefix")
set(EXT_PREFIX "${WORK_DIR}/ext")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# 1. Install.
run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}")

# 2. The prefix.
foreach(_file bin/tessera lib/libtessera.so include/tessera/plugin.h
        lib/cmake/Tessera/TesseraConfig.cmake
        lib/cmake/Tessera/TesseraConfigVersion.cmake
        lib/cmake/Tessera/TesseraTargets.cmake
        lib/cmake/Tessera/TesseraPlugin.cmake lib/pkgconfig/tessera.pc)
  if(NOT EXISTS "${PREFIX}/${_file}")
    message(FATAL_ERROR "not installed: ${_file}")
  endif()
endforeach()
file(GLOB_RECURSE _installed_headers RELATIVE "${PREFIX}/include" "${PREFIX}/include/*")
file(GLOB_RECURSE _public_headers RELATIVE "${SOURCE_DIR}/core/include"
     "${SOURCE_DIR}/core/include/*.h")
list(SORT _installed_headers)
list(SORT _public_headers)
if(NOT _installed_headers STREQUAL _public_headers)
  message(FATAL_ERROR "installed headers differ from core/include:\n"
                      "installed: ${_installed_headers}\npublic: ${_public_headers}")
endif()
file(GLOB _installed_plugins "${PREFIX}/lib/tessera/plugins/*.so")
if(NOT _installed_plugins)
  message(FATAL_ERROR "no in-tree plugins in ${PREFIX}/lib/tessera/plugins")
endif()

set(_pc_env "PKG_CONFIG_PATH=${PREFIX}/lib/pkgconfig")
run("${PKG_CONFIG}" --modversion tessera ENV ${_pc_env} OUTPUT _pc_version)
expect_match("${_pc_version}" "^0\\.1\\.[0-9]+" "pkg-config --modversion")
run("${PKG_CONFIG}" --variable=plugin_abi_version tessera ENV ${_pc_env} OUTPUT _pc_abi)
expect_match("${_pc_abi}" "^${ABI_VERSION}\n" "tessera.pc plugin_abi_version")
run("${PKG_CONFIG}" --cflags --libs tessera ENV ${_pc_env} OUTPUT _pc_flags)
expect_match("${_pc_flags}" "-ltessera" "pkg-config --libs")
string(STRIP "${_pc_flags}" _pc_flags)
separate_arguments(_pc_flags UNIX_COMMAND "${_pc_flags}")
file(WRITE "${WORK_DIR}/pkgconfig_check.cpp" "#include \"tessera/plugin.h\"\n")
run("${CXX_COMPILER}" -fsyntax-only ${_pc_flags} "${WORK_DIR}/pkgconfig_check.cpp")

# 3. Out-of-tree builds against the prefix alone: no package registry, and
# the compile commands must not mention the source tree's core.
set(_configure_args -G "${GENERATOR}" -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
function(build_project name source)
  set(_build "${WORK_DIR}/build-${name}")
  run("${CMAKE_COMMAND}" -S "${source}" -B "${_build}" ${_configure_args}
      -DCMAKE_INSTALL_PREFIX=${EXT_PREFIX})
  run("${CMAKE_COMMAND}" --build "${_build}" -j 2)
  file(READ "${_build}/compile_commands.json" _commands)
  string(FIND "${_commands}" "${SOURCE_DIR}/core" _leak)
  if(NOT _leak EQUAL -1)
    message(FATAL_ERROR "${name} compiles against the source tree:\n${_commands}")
  endif()
endfunction()

build_project(header_check "${SOURCE_DIR}/tests/sdk/header_check")
build_project(op_stats "${SOURCE_DIR}/sdk/examples/op_stats")
build_project(numpy_backend "${SOURCE_DIR}/sdk/examples/numpy_backend")
run("${CMAKE_COMMAND}" --install "${WORK_DIR}/build-op_stats")
run("${CMAKE_COMMAND}" --install "${WORK_DIR}/build-numpy_backend")
set(PLUGIN_DIR "${EXT_PREFIX}/lib/tessera/plugins")

# Only the entry point is exported from the plugins' own code.
foreach(_plugin op_stats numpy_reference)
  run("${NM}" -D -C --defined-only "${PLUGIN_DIR}/lib${_plugin}.so" OUTPUT _symbols)
  expect_match("${_symbols}" "tesseraGetPluginInfo" "lib${_plugin}.so exports")
  if(_symbols MATCHES "${_plugin}::")
    message(FATAL_ERROR "lib${_plugin}.so exports internal symbols:\n${_symbols}")
  endif()
endforeach()

# 4. The installed CLI with the out-of-tree plugins.
set(TESSERA "${PREFIX}/bin/tessera")
run("${TESSERA}" --version OUTPUT _version)
expect_match("${_version}" "tessera 0\\.1" "tessera --version")
# The ABI version the installed header carries is the one the loader supports.
file(STRINGS "${PREFIX}/include/tessera/plugin.h" _abi_line
     REGEX "^#define TESSERA_PLUGIN_ABI_VERSION [0-9]+")
string(REGEX REPLACE ".* ([0-9]+)$" "\\1" _header_abi "${_abi_line}")
expect_match("${_version}" "plugin ABI version ${_header_abi}\\)"
             "installed plugin.h and the loader agree on the ABI version")
# The in-tree plugins load from the prefix too (listed first, they shadow
# the build tree's copies, which the CLI would otherwise also search).
set(INSTALLED_PLUGIN_DIR "${PREFIX}/lib/tessera/plugins")
run("${TESSERA}" plugins --plugin-path "${PLUGIN_DIR}"
    --plugin-path "${INSTALLED_PLUGIN_DIR}" OUTPUT _plugins)
expect_match("${_plugins}" "  ${INSTALLED_PLUGIN_DIR}/lib" "installed in-tree plugins")
expect_match("${_plugins}" "numpy-reference 0\\.1\\.0  ${PLUGIN_DIR}/libnumpy_reference\\.so"
             "tessera plugins")
expect_match("${_plugins}" "pass +op-stats" "tessera plugins")
expect_match("${_plugins}" "backend +numpy-reference" "tessera plugins")
# Loader and installed headers agree on the ABI: the plugins above load, and
# one built for the next version is refused with both numbers.
math(EXPR _next_abi "${ABI_VERSION} + 1")
run("${TESSERA}" plugins --plugin-path
    "${WORK_DIR}/build-header_check/mismatch/libabi_mismatch.so"
    EXPECT_FAILURE OUTPUT _mismatch)
expect_match("${_mismatch}" "got ${_next_abi}, supported ${ABI_VERSION}"
             "ABI mismatch report")

set(CONFIG "${SOURCE_DIR}/sdk/examples/numpy_backend/numpy_reference.toml")
run("${TESSERA}" pipeline --config "${CONFIG}" --plugin-path "${PLUGIN_DIR}"
    --plugin-path "${INSTALLED_PLUGIN_DIR}" OUTPUT _pipeline)
expect_match("${_pipeline}" "backend = \"numpy-reference\"" "tessera pipeline")

# check_kernel(<kernel> <passes> [<arg>=<type>...]): compiles
# examples/<kernel>.py with the config above (frontend helion-py, backend
# numpy-reference) and the given passes and argument types, then runs the
# generated module on those shapes (the example's own inputs when none are
# given) against examples/references.py.
function(check_kernel kernel passes)
  set(_out "${WORK_DIR}/out/${kernel}/")
  set(_compile_args)
  set(_check_args)
  foreach(_arg IN LISTS ARGN)
    list(APPEND _compile_args "--arg=${_arg}")
    list(APPEND _check_args --arg "${_arg}")
  endforeach()
  run("${TESSERA}" compile "${SOURCE_DIR}/examples/${kernel}.py" --config "${CONFIG}"
      --plugin-path "${PLUGIN_DIR}" --plugin-path "${INSTALLED_PLUGIN_DIR}"
      --passes ${passes} ${_compile_args} -o "${_out}"
      OUTPUT _log)
  expect_match("${_log}" "remark: op-stats: @${kernel}" "op-stats remarks")
  run("${PYTHON}" -m pyflakes "${_out}/${kernel}_numpy.py")
  run("${PYTHON}" "${SOURCE_DIR}/tests/sdk/check_numpy_output.py"
      "${_out}/${kernel}_numpy.py" "${SOURCE_DIR}/examples/references.py" ${kernel}
      ${_check_args} OUTPUT _check)
  message(STATUS "${_check}")
endfunction()

# Structured SSA IR with symbolic shapes, run on sizes that leave partial
# tiles at the edges; then outlined host/device IR for kernels covering
# inner loops with carried values, reductions, views, atomics and scalars.
check_kernel(add "ssa,op-stats")
run("${PYTHON}" "${SOURCE_DIR}/tests/sdk/check_numpy_output.py"
    "${WORK_DIR}/out/add/add_numpy.py" "${SOURCE_DIR}/examples/references.py"
    add --arg "x=f32[100,300]" --arg "y=f32[100,300]")
check_kernel(softmax "ssa,outline,op-stats" "x=f32[256,512]")
check_kernel(matmul "ssa,outline,op-stats" "x=f32[256,384]" "y=f32[384,512]")
check_kernel(attention "ssa,outline,op-stats"
             "q_in=f32[2,4,256,64]" "k_in=f32[2,4,512,64]" "v_in=f32[2,4,512,64]")
check_kernel(split_k_matmul "ssa,outline,op-stats" "x=f32[128,1024]" "y=f32[1024,256]")
check_kernel(rms_norm "ssa,outline,op-stats" "x=f32[256,512]" "weight=f32[512]")
# numpy-reference's lowering pass runs after the config's passes, by name,
# with the pass manager's printing.
run("${TESSERA}" compile "${SOURCE_DIR}/examples/rms_norm.py" --config "${CONFIG}"
    --plugin-path "${PLUGIN_DIR}" --plugin-path "${INSTALLED_PLUGIN_DIR}"
    --passes ssa,outline --print-ir-after numpy-same-dtype-casts
    -o "${WORK_DIR}/out/lowering/" OUTPUT _lowering)
expect_match("${_lowering}" "IR after pass 'numpy-same-dtype-casts'"
             "the backend's lowering pass")
# op-stats registers a property of its own, `op_counted`, with a verifier.
# Verify-each runs it after the pass (the IR is checked and keeps the
# claim) and on an input that claims it: a wrong count is caught, and only
# because verify-each is on.
set(_ir_dir "${WORK_DIR}/out/op_counted")
file(MAKE_DIRECTORY "${_ir_dir}")
run("${TESSERA}" compile "${SOURCE_DIR}/examples/add.py" --config "${CONFIG}"
    --plugin-path "${PLUGIN_DIR}" --plugin-path "${INSTALLED_PLUGIN_DIR}"
    --passes ssa,op-stats --timing --emit=ir -o "${_ir_dir}/counted.tir"
    OUTPUT _log)
expect_match("${_log}" "op-stats \\(verify\\)" "verify-each after op-stats")
file(READ "${_ir_dir}/counted.tir" _counted)
expect_match("${_counted}" "properties \\[ssa, op_counted\\]" "op_counted claimed")
expect_match("${_counted}" "op_count = [0-9]+" "op_count recorded")
string(REGEX REPLACE "op_count = [0-9]+" "op_count = 999" _miscounted "${_counted}")
file(WRITE "${_ir_dir}/miscounted.tir" "${_miscounted}")
set(_tir_args --config "${CONFIG}" --plugin-path "${PLUGIN_DIR}"
    --plugin-path "${INSTALLED_PLUGIN_DIR}" --passes= --emit=ir -o -)
run("${TESSERA}" compile "${_ir_dir}/counted.tir" ${_tir_args})
run("${TESSERA}" compile "${_ir_dir}/miscounted.tir" ${_tir_args}
    EXPECT_FAILURE OUTPUT _miscount)
expect_match("${_miscount}" "op_counted: op_count is 999 but the function has [0-9]+ ops"
             "the op_counted verifier under verify-each")
run("${TESSERA}" compile "${_ir_dir}/miscounted.tir" ${_tir_args} --no-verify-each)
message(STATUS "sdk test: ok")
