# SPDX-License-Identifier: GPL-2.0-or-later
# bpf.cmake: the ownership map's task_file BPF iterator, built into pmutop (never the board
# agent) when libbpf, clang, bpftool and the kernel's BTF are there: vmlinux.h is generated from
# /sys/kernel/btf/vmlinux, the program compiled by clang, its skeleton written by bpftool.
option(PMUTOP_BPF "Build the BPF iterator of the ownership map (needs libbpf, clang, bpftool)" ON)
set(PMUTOP_HAVE_BPF OFF)
if(PMUTOP_BPF)
  set(BPF_MISSING "")
  if(CMAKE_CROSSCOMPILING OR NOT CMAKE_SIZEOF_VOID_P EQUAL 8)
    set(BPF_MISSING "a cross or 32-bit build")
  else()
    pkg_check_modules(LIBBPF IMPORTED_TARGET libbpf)
    find_program(BPF_CLANG NAMES clang clang-16 clang-15 clang-14)
    find_program(BPFTOOL bpftool PATHS /usr/sbin /sbin /usr/local/sbin)
    set(BPF_BTF /sys/kernel/btf/vmlinux)
    if(NOT LIBBPF_FOUND)
      set(BPF_MISSING "libbpf (libbpf-dev)")
    elseif(NOT BPF_CLANG)
      set(BPF_MISSING "clang")
    elseif(NOT BPFTOOL)
      set(BPF_MISSING "bpftool")
    elseif(NOT EXISTS ${BPF_BTF})
      set(BPF_MISSING "the kernel's BTF (${BPF_BTF})")
    endif()
  endif()
  if(BPF_MISSING)
    message(STATUS "BPF iterator of the ownership map: off (no ${BPF_MISSING}); /proc is used")
  else()
    set(PMUTOP_HAVE_BPF ON)
  endif()
endif()

if(PMUTOP_HAVE_BPF)
  set(BPF_DIR ${CMAKE_BINARY_DIR}/bpf)
  set(BPF_SRC ${CMAKE_SOURCE_DIR}/src/platform/bpf)
  file(MAKE_DIRECTORY ${BPF_DIR})
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    set(BPF_ARCH x86)
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
    set(BPF_ARCH arm64)
  else()
    set(BPF_ARCH ${CMAKE_SYSTEM_PROCESSOR})
  endif()
  add_custom_command(OUTPUT ${BPF_DIR}/vmlinux.h
    COMMAND ${BPFTOOL} btf dump file ${BPF_BTF} format c > ${BPF_DIR}/vmlinux.h
    COMMENT "Generating vmlinux.h from the kernel's BTF")
  add_custom_command(OUTPUT ${BPF_DIR}/owners.bpf.o
    COMMAND ${BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${BPF_ARCH} -I${BPF_DIR} -I${BPF_SRC}
            -c ${BPF_SRC}/owners.bpf.c -o ${BPF_DIR}/owners.bpf.o
    DEPENDS ${BPF_SRC}/owners.bpf.c ${BPF_SRC}/owners_rec.h ${BPF_DIR}/vmlinux.h
    COMMENT "Compiling the ownership BPF iterator")
  add_custom_command(OUTPUT ${BPF_DIR}/owners_bpf.skel.h
    COMMAND ${BPFTOOL} gen skeleton ${BPF_DIR}/owners.bpf.o name owners_bpf
            > ${BPF_DIR}/owners_bpf.skel.h
    DEPENDS ${BPF_DIR}/owners.bpf.o
    COMMENT "Writing the BPF iterator's skeleton")
  add_library(pmubpf STATIC ${BPF_SRC}/owners_bpf.c ${BPF_DIR}/owners_bpf.skel.h)
  # libbpf is loaded with dlopen while the iterator is loaded (owners_bpf.c), never linked
  find_library(BPF_LIB bpf HINTS ${LIBBPF_LIBRARY_DIRS})
  pmutop_soname(BPF_SONAME "${BPF_LIB}" libbpf.so.1)
  target_include_directories(pmubpf PRIVATE ${BPF_DIR} ${BPF_SRC} ${LIBBPF_INCLUDE_DIRS})
  target_compile_definitions(pmubpf PRIVATE PMUTOP_BPF_SONAME="${BPF_SONAME}")
  target_link_libraries(pmubpf PUBLIC pmucore ${CMAKE_DL_LIBS})
  target_link_libraries(pmutop PRIVATE pmubpf)
  target_compile_definitions(pmutop PRIVATE PMUTOP_BPF)
  message(STATUS "BPF iterator of the ownership map: on")
endif()
