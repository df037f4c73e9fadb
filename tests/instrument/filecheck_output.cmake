# Runs COMMAND, piped into PIPE_TO if given, and checks the standard output with FileCheck against
# the directives with the prefixes PREFIXES in CHECK_FILE. The commands are lists separated by "|".
# Fails if any of the processes fails.
string(REPLACE "|" ";" command "${COMMAND}")
set(pipeline COMMAND ${command})
if(DEFINED PIPE_TO)
  string(REPLACE "|" ";" pipe_to "${PIPE_TO}")
  list(APPEND pipeline COMMAND ${pipe_to})
endif()
execute_process(${pipeline} COMMAND ${FILECHECK} --check-prefixes=${PREFIXES} ${CHECK_FILE}
                RESULTS_VARIABLE results)
foreach(result IN LISTS results)
  if(NOT result STREQUAL "0")
    string(REPLACE ";" " " shown "${pipeline}")
    message(FATAL_ERROR "exit codes ${results} of: ${shown} | FileCheck")
  endif()
endforeach()
