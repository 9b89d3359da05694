# Building model libraries in TVM's export form with the generator tests/models/aotgen.py: used by
# the test models (tests/models) and the bundled samples (samples/).
#
#   aotgen_model(TARGET <target> SPEC <spec.json> OUT_DIR <dir> C_DIR <dir> [DATA <files>...]
#                [SYSTEM_LIB | NO_CASE] [COMMENT <text>])
#     -> OUT_DIR/<spec name>.so (a MODULE library, not linked to aotrt, like a TVM export) and
#        OUT_DIR/<spec name>.case/ (reference inputs and outputs); SYSTEM_LIB: an OBJECT library to
#        link into an executable instead. NO_CASE: no reference folder (models whose reference run
#        in Python would be too slow, such as the benchmark's large model).
#
# AOTRT_PYTHON: the interpreter for the generator and the Python-hosted tests.

if(EXISTS /usr/bin/python3)
  set(AOTRT_PYTHON /usr/bin/python3)  # Debian's, with python3-numpy for the tests
else()
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  set(AOTRT_PYTHON ${Python3_EXECUTABLE})
endif()

set(AOTGEN_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/../tests/models/aotgen.py)
file(GLOB AOTGEN_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/../tests/models/aotgen/*.py)

function(aotgen_model)
  cmake_parse_arguments(ARG "SYSTEM_LIB;NO_CASE" "TARGET;SPEC;OUT_DIR;C_DIR;COMMENT" "DATA" ${ARGN})
  get_filename_component(name ${ARG_SPEC} NAME_WE)
  set(csrc ${ARG_C_DIR}/${name}.c)
  set(case_json ${ARG_OUT_DIR}/${name}.case/case.json)
  set(no_case)
  if(ARG_NO_CASE)
    set(case_json)
    set(no_case --no-case)
  endif()
  add_custom_command(
    OUTPUT ${csrc} ${case_json}
    COMMAND ${AOTRT_PYTHON} ${AOTGEN_SCRIPT} ${ARG_SPEC} --out-dir ${ARG_OUT_DIR} --c-dir ${ARG_C_DIR} ${no_case}
    DEPENDS ${ARG_SPEC} ${AOTGEN_SCRIPT} ${AOTGEN_SOURCES} ${ARG_DATA}
    COMMENT "aotgen: ${ARG_COMMENT} ${name}"
    VERBATIM)
  if(ARG_SYSTEM_LIB)
    add_library(${ARG_TARGET} OBJECT ${csrc} ${case_json})
  else()
    add_library(${ARG_TARGET} MODULE ${csrc} ${case_json})
    set_target_properties(${ARG_TARGET} PROPERTIES
      PREFIX ""
      SUFFIX ".so"
      OUTPUT_NAME ${name}
      LIBRARY_OUTPUT_DIRECTORY ${ARG_OUT_DIR})
    # Undefined TVM symbols are the point of the c flavour: cancel a global -Wl,--no-undefined
    # (given as a link item so that it lands after CMAKE_MODULE_LINKER_FLAGS on the command line).
    target_link_libraries(${ARG_TARGET} PRIVATE -Wl,-z,undefs)
  endif()
  set_target_properties(${ARG_TARGET} PROPERTIES
    C_STANDARD 11
    C_STANDARD_REQUIRED ON
    C_EXTENSIONS OFF
    POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET default)
  # -ffp-contract=off: no FMA contraction, so float results match the reference vectors exactly.
  target_compile_options(${ARG_TARGET} PRIVATE -O2 -fPIC -ffp-contract=off)
endfunction()
