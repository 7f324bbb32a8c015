# SPDX-License-Identifier: GPL-2.0-or-later
# man.cmake: writes a manual page with the binary's --help-roff (through EMU when cross-built) and
# gzips it reproducibly (-n: no name or time stamp).
set(cmd ${BIN} --help-roff ${IN})
if(EMU) # the cross-build's emulator, its words separated by commas
  string(REPLACE "," ";" EMU "${EMU}")
  set(cmd ${EMU} ${cmd})
endif()
execute_process(COMMAND ${cmd} OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN} --help-roff ${IN} failed: ${rc}")
endif()
execute_process(COMMAND gzip -9nkf ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${OUT} failed: ${rc}")
endif()
