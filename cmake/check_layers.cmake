# Fails when a source file includes a header from a layer above its own, or
# from a layer beside it (nic/ and scheduler/ never include each other), or
# when a service reaches below the public API. The layers are those of
# docs/design.md §8; each is also its own CMake library linking only what is
# below it, and its own folder.
#   cmake -DROOT=<repository> -P cmake/check_layers.cmake
cmake_minimum_required(VERSION 3.22)
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<repository> -P check_layers.cmake")
endif()

# The house: folder (a path prefix), component, layer. The first prefix that
# matches a path names its component; keep longer prefixes first.
set(kLayers
  lib/base/             base       0
  lib/wire/             wire       1
  lib/contract/         contract   2
  nic/                  nic        3
  scheduler/            scheduler  3
  model/                model      4
  runtime/platform/     platform   4
  runtime/host/         runtime    5
  runtime/flags/        flags      6
  runtime/client/       client     6
  runtime/program/      program    7
  runtime/check/        check      7
  runtime/client_main/  loadgen    8
  runtime/simulation/   sim        9
  apps/                 service    9
  examples/             service    9
  tools/                tool       10
  bench/                tool       10
  tests/                tool       10
  fuzz/                 tool       10)

# Public headers by the layer that implements them.
set(kPublic
  base       app_header,error,stats,address,limits,policies,fault_spec,tx_failure,host_noise,message_sizes,seeded_draw,probe,buggify,durable_file
  nic        spin,spin_local
  scheduler  thread,memory_message,lnic
  model      spin_model
  runtime    config,runtime
  flags      flags,nanopu_main,program_flags
  client     rpc,loadgen,history,program
  check      lincheck
  loadgen    loadgen_main
  sim        sim,program_main)

# component_of(<path from ROOT> <out-component> <out-layer>)
function(component_of path out_c out_l)
  set(c "")
  if(path MATCHES "^include/nanopu/([a-z_]+)\\.h$")
    set(h ${CMAKE_MATCH_1})
    set(table ${kPublic})
    while(table)
      list(POP_FRONT table comp headers)
      string(REPLACE "," ";" headers "${headers}")
      if(h IN_LIST headers)
        set(c ${comp})
      endif()
    endwhile()
    if(c STREQUAL "")
      message(FATAL_ERROR "check_layers: public header ${path} has no layer: add it to kPublic in cmake/check_layers.cmake")
    endif()
  else()
    set(table ${kLayers})
    while(table AND c STREQUAL "")
      list(POP_FRONT table prefix comp layer)
      string(FIND "${path}" "${prefix}" at)
      if(at EQUAL 0)
        set(c ${comp})
      endif()
    endwhile()
  endif()
  set(l -1)
  set(table ${kLayers})
  while(table)
    list(POP_FRONT table prefix comp layer)
    if(comp STREQUAL c)
      set(l ${layer})
    endif()
  endwhile()
  set(${out_c} "${c}" PARENT_SCOPE)
  set(${out_l} "${l}" PARENT_SCOPE)
endfunction()

set(globs ${ROOT}/include/*.h)
set(table ${kLayers})
while(table)
  list(POP_FRONT table prefix comp layer)
  list(APPEND globs ${ROOT}/${prefix}*.h ${ROOT}/${prefix}*.cc ${ROOT}/${prefix}*.c)
endwhile()
file(GLOB_RECURSE sources RELATIVE ${ROOT} ${globs})
list(FILTER sources EXCLUDE REGEX "(^|/)build[^/]*/")
list(REMOVE_DUPLICATES sources)

set(errors "")
set(checked 0)
foreach(src ${sources})
  component_of(${src} from_c from_l)
  if(from_c STREQUAL "")
    continue()
  endif()
  file(STRINGS ${ROOT}/${src} includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
  foreach(line ${includes})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*$" "\\1" inc "${line}")
    if(EXISTS ${ROOT}/include/${inc})
      set(target include/${inc})
    elseif(EXISTS ${ROOT}/${inc})
      set(target ${inc})
    else()
      continue()  # a system or dependency header (absl/..., gtest/...)
    endif()
    math(EXPR checked "${checked} + 1")
    component_of(${target} to_c to_l)
    set(ok TRUE)
    if(src MATCHES "^include/" AND NOT target MATCHES "^include/")
      set(ok FALSE)  # a public header must not expose an internal one
    elseif(from_c STREQUAL "service")
      # Services use the public API and each other's headers only.
      if(NOT target MATCHES "^include/nanopu/" AND NOT to_c STREQUAL "service")
        set(ok FALSE)
      endif()
    elseif(to_c STREQUAL "" OR to_c STREQUAL "tool" OR to_c STREQUAL "service")
      # tools may include tools and services; nothing in a layer may
      if(NOT from_c STREQUAL "tool")
        set(ok FALSE)
      endif()
    elseif(NOT from_c STREQUAL to_c AND NOT to_l LESS from_l)
      set(ok FALSE)
    endif()
    if(NOT ok)
      string(APPEND errors "  ${src} (${from_c}) includes ${inc} (${to_c})\n")
    endif()
  endforeach()
endforeach()

if(errors)
  message(FATAL_ERROR "Includes against the layering (docs/design.md §8):\n${errors}")
endif()
list(LENGTH sources n)
message(STATUS "check_layers: ${n} files, ${checked} project includes, all downward")
