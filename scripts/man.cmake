# SPDX-License-Identifier: GPL-2.0-or-later
# man.cmake: writes a manual page with the binary's --help-roff (through EMU when cross-built) and
# gzips it reproducibly (-n: no name or time stamp); with COMPLETION=SHELL, the binary's
# --completion SHELL script instead (not gzipped).
if(COMPLETION)
  set(cmd ${BIN} --completion ${COMPLETION})
else()
  set(cmd ${BIN} --help-roff ${IN})
endif()
if(EMU) # the cross-build's emulator, its words separated by commas
  string(REPLACE "," ";" EMU "${EMU}")
  set(cmd ${EMU} ${cmd})
endif()
execute_process(COMMAND ${cmd} OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${cmd} failed: ${rc}")
endif()
if(NOT COMPLETION)
  execute_process(COMMAND gzip -9nkf ${OUT} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip ${OUT} failed: ${rc}")
  endif()
endif()
