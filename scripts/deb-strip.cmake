# SPDX-License-Identifier: GPL-2.0-or-later
# deb-strip.cmake: cpack's pre-build script: strips the staged binaries as Debian's dh_strip does
# (--strip-unneeded, without the .comment and .note sections) before the packages are made.
file(GLOB_RECURSE bins "${CPACK_TEMPORARY_DIRECTORY}/*")
list(FILTER bins INCLUDE REGEX "/bin/[^/]+$")
if(NOT bins)
  message(FATAL_ERROR "deb-strip: no staged binaries under ${CPACK_TEMPORARY_DIRECTORY}")
endif()
foreach(bin ${bins})
  execute_process(COMMAND ${CPACK_PMUTOP_STRIP} --remove-section=.comment --remove-section=.note
                          --strip-unneeded ${bin} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "deb-strip: ${CPACK_PMUTOP_STRIP} ${bin} failed: ${rc}")
  endif()
endforeach()
