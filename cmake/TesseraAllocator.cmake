# The allocator of Tessera's executables (the tessera CLI, bench_pipeline).
#
# A compile is many small, short-lived allocations (tokens, AST and IR
# nodes, Python lines); with glibc's malloc, malloc/free were a quarter of
# the instructions of an attention compile (callgrind, docs/benchmarking.md).
# Like rustc with jemalloc, the executables link gperftools' tcmalloc_minimal
# when it is installed (Debian: libgoogle-perftools-dev, which
# scripts/setup.sh installs). The plugins and libtessera use whatever
# allocator the process has, so a host program embedding the core keeps its
# own. Sanitizer and fuzzer builds keep the sanitizers' allocator.
#
#   -DTESSERA_ALLOCATOR=tcmalloc   require tcmalloc_minimal
#   -DTESSERA_ALLOCATOR=system     glibc malloc
#   -DTESSERA_ALLOCATOR=auto       tcmalloc_minimal when found (default)
set(TESSERA_ALLOCATOR "auto" CACHE STRING
    "Allocator of the tessera executables: auto, tcmalloc or system")
set_property(CACHE TESSERA_ALLOCATOR PROPERTY STRINGS auto tcmalloc system)

set(TESSERA_ALLOCATOR_NAME "system")
if(TESSERA_SANITIZE OR TESSERA_FUZZ)
  if(TESSERA_ALLOCATOR STREQUAL "tcmalloc")
    message(FATAL_ERROR "TESSERA_ALLOCATOR=tcmalloc cannot be combined with "
                        "the sanitizers, which bring their own allocator")
  endif()
elseif(NOT TESSERA_ALLOCATOR STREQUAL "system")
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(TESSERA_TCMALLOC QUIET IMPORTED_TARGET
                      libtcmalloc_minimal)
  endif()
  if(TESSERA_TCMALLOC_FOUND)
    set(TESSERA_ALLOCATOR_NAME "tcmalloc_minimal ${TESSERA_TCMALLOC_VERSION}")
  elseif(TESSERA_ALLOCATOR STREQUAL "tcmalloc")
    message(FATAL_ERROR "TESSERA_ALLOCATOR=tcmalloc: libtcmalloc_minimal not "
                        "found (apt-get install libgoogle-perftools-dev)")
  endif()
endif()
message(STATUS "Tessera executables allocate with: ${TESSERA_ALLOCATOR_NAME}")

# Links `target` (an executable) against the chosen allocator and tells it
# which one (TESSERA_ALLOCATOR_NAME, for --version and benchmark context).
function(tessera_use_allocator target)
  target_compile_definitions(${target} PRIVATE
    TESSERA_ALLOCATOR_NAME="${TESSERA_ALLOCATOR_NAME}")
  if(TESSERA_TCMALLOC_FOUND)
    # Nothing references tcmalloc by name; keep it against --as-needed.
    target_link_options(${target} PRIVATE "LINKER:--no-as-needed")
    target_link_libraries(${target} PRIVATE PkgConfig::TESSERA_TCMALLOC)
  endif()
endfunction()
