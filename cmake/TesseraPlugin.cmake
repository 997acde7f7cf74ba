# tessera_add_plugin(<target> SOURCES <src>... [LINK_LIBRARIES <lib>...]
#                    [NO_INSTALL] [OUTPUT_DIRECTORY <dir>])
#
# Builds a loadable Tessera plugin: a MODULE library compiled as C++20 with
# hidden visibility (only the entry point defined by TESSERA_PLUGIN is
# exported), linked against the core library with --no-undefined so a missing
# symbol fails the link instead of the dlopen.
#
# The same file serves the Tessera build (where Tessera::core is an alias of
# the tessera_core target) and out-of-tree plugins, which get an installed
# copy through find_package(Tessera) (Tessera::core is then imported).
#
# Where the plugin goes:
#  - OUTPUT_DIRECTORY, else TESSERA_PLUGIN_OUTPUT_DIR when set (the Tessera
#    build sets it to <build>/lib/tessera/plugins so the driver finds in-tree
#    plugins), else CMake's default (CMAKE_LIBRARY_OUTPUT_DIRECTORY or the
#    current binary dir).
#  - `cmake --install` copies it to TESSERA_INSTALL_PLUGIN_DIR (relative to
#    the install prefix: lib/tessera/plugins) unless NO_INSTALL is given;
#    such a shipped plugin is also built by the `tessera_main` target when
#    the project defines one (the Tessera build does).
function(tessera_add_plugin target)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIRECTORY"
                        "SOURCES;LINK_LIBRARIES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "tessera_add_plugin(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "tessera_add_plugin(${target}): SOURCES is required")
  endif()
  if(NOT TARGET Tessera::core)
    message(FATAL_ERROR "tessera_add_plugin(${target}): Tessera::core is not "
                        "defined; call find_package(Tessera) first")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Tessera::core ${ARG_LINK_LIBRARIES})
  target_compile_features(${target} PRIVATE cxx_std_20)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    CXX_STANDARD 20
    CXX_STANDARD_REQUIRED ON
    CXX_EXTENSIONS OFF)
  if(NOT TESSERA_PLUGIN_ALLOW_UNDEFINED)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  elseif(DEFINED TESSERA_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY "${TESSERA_PLUGIN_OUTPUT_DIR}")
  endif()
  if(NOT ARG_NO_INSTALL)
    if(DEFINED TESSERA_INSTALL_PLUGIN_DIR)
      set(_tessera_plugin_dest "${TESSERA_INSTALL_PLUGIN_DIR}")
    else()
      set(_tessera_plugin_dest "lib/tessera/plugins")
    endif()
    # Installed plugins sit in <prefix>/lib/tessera/plugins; libtessera is
    # two levels up, so ldd and standalone dlopen find it too.
    set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/../..")
    install(TARGETS ${target} LIBRARY DESTINATION "${_tessera_plugin_dest}")
    # In the Tessera build, a shipped plugin is part of what the main job
    # builds (the tessera_main target of the top-level CMakeLists.txt).
    if(TARGET tessera_main)
      add_dependencies(tessera_main ${target})
    endif()
  endif()
endfunction()
