# The applications (apps/): each against its reference at 1 to 5 ranks (odd sizes, sizes not divisible
# by the ranks), each variant and agent, and their errors on bad options and files. Every variant at
# every size in the full set (Open MPI); a few in the others.

# tandem_app_test(<name> <ranks> [ENV var=value ...] COMMAND <script> <its arguments> ...): the
# script gets a work directory and the launcher for <ranks> ranks, then `--`, then the app and options.
function(tandem_app_test name ranks)
  cmake_parse_arguments(T "" "" "ENV;COMMAND" ${ARGN})
  list(POP_FRONT T_COMMAND script)
  add_test(NAME ${name} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/apps/${script} ${CMAKE_CURRENT_BINARY_DIR}/apps_work/${name}
           ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${tandem_preflags} ${MPIEXEC_PREFLAGS} -- ${T_COMMAND})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 PROCESSORS 1
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;${T_ENV}")
endfunction()

if(TARGET tandem-pcompress)
  set(pc $<TARGET_FILE:tandem-pcompress>)
  # (name ranks options): the blocking scheme, and the pipelined one over tiles and windows
  set(pcompress_cases
    "blocking 1 --variant blocking" "blocking 3 --variant blocking"
    "auto 1 --variant pipelined" "tile1_window2 2 --tile 1 --window 2" "tile2_window3 3 --tile 2 --window 3"
    "tune 4 --tune --reps 5" "tile3_window1 5 --tile 3 --window 1" "zstd 3 --codec zstd --level 5")
  if(NOT TANDEM_FULL_VARIANTS)
    set(pcompress_cases "blocking 3 --variant blocking" "tile2_window3 3 --tile 2 --window 3" "zstd 2 --codec zstd")
  endif()
  foreach(case ${pcompress_cases})
    separate_arguments(case UNIX_COMMAND "${case}")
    list(POP_FRONT case what ranks)
    tandem_app_test(pcompress_np${ranks}_${what} ${ranks} COMMAND pcompress_roundtrip.sh ${pc} ${case})
  endforeach()
  tandem_app_test(pcompress_np3_thread 3 ENV TANDEM_PROGRESS=thread COMMAND pcompress_roundtrip.sh ${pc} --tile 2)
  tandem_app_test(pcompress_np4_dcp 4 ENV TANDEM_PROGRESS=dcp TANDEM_DCP_COUNT=1 COMMAND pcompress_roundtrip.sh ${pc})
  tandem_app_test(pcompress_np3_split 3 ENV TANDEM_PROGRESS=split COMMAND pcompress_roundtrip.sh ${pc} --tile 2)
  # an empty file: one empty stream, which bzip2 -d restores to nothing
  tandem_tool_test(pcompress_empty 0 "0 bytes in 0 blocks.* 14 bytes .*restored 0"
    sh -c ": > pc_empty && \"$0\" --in pc_empty --out pc_empty.bz2 && echo restored $(bzip2 -dc pc_empty.bz2 | wc -c)" ${pc})
  # made-up input: bzip2 -d restores as many bytes
  tandem_tool_test(pcompress_made_up 0 "1000001 bytes in 4 blocks.*restored 1000001"
    sh -c "\"$0\" --made-up 1000001 --block 300000 --out pc_made_up.bz2 && echo restored $(bzip2 -dc pc_made_up.bz2 | wc -c)" ${pc})
  # random made-up input: restored as many bytes, and bzip2 cannot shrink it (the stream is larger)
  tandem_tool_test(pcompress_made_up_random 0 "600001 bytes in 3 blocks.*restored 600001 larger"
    sh -c "\"$0\" --made-up 600001 --made-up-kind random --block 250000 --out pc_random.bz2 && echo restored $(bzip2 -dc pc_random.bz2 | wc -c) $(test $(wc -c < pc_random.bz2) -gt 600001 && echo larger)" ${pc})
  tandem_tool_test(pcompress_bad_made_up_kind [1-9] "--made-up-kind noise: expected text or random"
    ${pc} --made-up 10 --made-up-kind noise --out x.bz2)
  tandem_tool_test(pcompress_made_up_kind_alone [1-9] "--made-up-kind random: needs --made-up BYTES"
    ${pc} --in /etc/hostname --made-up-kind random --out x.bz2)
  tandem_tool_test(pcompress_missing [1-9] "tandem-pcompress: --in no/such/file: cannot open: No such file or directory"
    ${pc} --in no/such/file --out x.bz2)
  tandem_tool_test(pcompress_directory [1-9] "tandem-pcompress: --in /: not a regular file" ${pc} --in / --out x.bz2)
  tandem_tool_test(pcompress_no_out [1-9] "tandem-pcompress: --out FILE is missing" ${pc} --in /etc/hostname)
  tandem_tool_test(pcompress_bad_out [1-9] "--out /no/such/dir/x.bz2: cannot create: No such file"
    ${pc} --in /etc/hostname --out /no/such/dir/x.bz2)
  tandem_tool_test(pcompress_bad_tile [1-9] "--tile 0: expected auto or a whole number" ${pc} --in /etc/hostname --out x.bz2 --tile 0)
  tandem_tool_test(pcompress_bad_variant [1-9] "--variant fast: expected blocking or pipelined"
    ${pc} --in /etc/hostname --out x.bz2 --variant fast)
  tandem_tool_test(pcompress_help 0 "usage: tandem-pcompress --in FILE --out FILE.bz2" ${pc} --help)
endif()

if(TARGET tandem-fft3d)
  set(fft $<TARGET_FILE:tandem-fft3d>)
  # (name ranks options): odd sizes, planes and rows not divisible by the ranks; --check compares with
  # FFTW's MPI transform on the same input (its serial one where this MPI has no fftw3-mpi)
  set(fft3d_cases
    "blocking 1 --n 7x5x6 --variant blocking" "auto 2 --n 8x6x5" "tile1_window2 3 --n 9x7x5 --tile 1 --window 2"
    "tile2_window3 4 --n 11x6x3 --tile 2 --window 3" "blocking 5 --n 7x9x4 --variant blocking"
    "tune 5 --n 12x10x3 --tune --reps 6" "few_planes 4 --n 3x8x2 --tile 1")
  if(NOT TANDEM_FULL_VARIANTS)
    set(fft3d_cases "blocking 3 --n 7x5x6 --variant blocking" "tile2_window3 3 --n 9x7x5 --tile 2 --window 3")
  endif()
  foreach(case ${fft3d_cases})
    separate_arguments(case UNIX_COMMAND "${case}")
    list(POP_FRONT case what ranks)
    tandem_mpi_test(tandem-fft3d ${ranks} NAME ${what} ARGS ${case} --check)
    set_tests_properties(tandem-fft3d_np${ranks}_${what} PROPERTIES PASS_REGULAR_EXPRESSION "check: .*: ok")
  endforeach()
  tandem_mpi_test(tandem-fft3d 3 NAME thread ENV TANDEM_PROGRESS=thread ARGS --n 9x7x5 --tile 2 --check)
  tandem_mpi_test(tandem-fft3d 4 NAME dcp ENV TANDEM_PROGRESS=dcp TANDEM_DCP_COUNT=1 ARGS --n 9x7x5 --check)
  tandem_mpi_test(tandem-fft3d 3 NAME split ENV TANDEM_PROGRESS=split ARGS --n 9x7x5 --tile 2 --check)
  set_tests_properties(tandem-fft3d_np3_thread tandem-fft3d_np4_dcp tandem-fft3d_np3_split PROPERTIES
                       PASS_REGULAR_EXPRESSION "check: .*: ok")
  tandem_app_test(fft3d_np3_files 3 COMMAND fft3d_file.sh ${fft} --n 6x7x5 --tile 2)
  tandem_tool_test(fft3d_missing [1-9] "tandem-fft3d: --in no/such/file: cannot open: No such file" ${fft} --n 2x2x2 --in no/such/file)
  tandem_tool_test(fft3d_empty [1-9] "--in fft_empty.raw: empty \\(0 bytes\\)[;] --n 2x2x2 needs 128"
    sh -c ": > fft_empty.raw && \"$0\" --n 2x2x2 --in fft_empty.raw" ${fft})
  tandem_tool_test(fft3d_truncated [1-9] "--in fft_short.raw: truncated \\(100 bytes\\)"
    sh -c "head -c 100 /dev/zero > fft_short.raw && \"$0\" --n 2x2x2 --in fft_short.raw" ${fft})
  tandem_tool_test(fft3d_bad_n [1-9] "--n 4x4: expected NXxNYxNZ, three positive numbers" ${fft} --n 4x4)
  tandem_tool_test(fft3d_no_n [1-9] "--n NXxNYxNZ is missing" ${fft})
  tandem_tool_test(fft3d_bad_out [1-9] "--out /no/such/dir/f.raw: cannot create" ${fft} --n 2x2x2 --out /no/such/dir/f.raw)
  tandem_tool_test(fft3d_help 0 "usage: tandem-fft3d --n NXxNYxNZ" ${fft} --help)
endif()

if(TARGET tandem-cg)
  set(cg $<TARGET_FILE:tandem-cg>)
  # PETSc's KSP as the reference, where PETSc was built with this build's MPI (Debian's: Open MPI's)
  pkg_check_modules(PETSC IMPORTED_TARGET PETSc)
  set(petsc_matches OFF)
  if(PETSC_FOUND)
    find_library(petsc_library NAMES ${PETSC_LIBRARIES} PATHS ${PETSC_LIBRARY_DIRS} NO_DEFAULT_PATH)
    list(GET MPI_C_LIB_NAMES 0 mpi_name)
    execute_process(COMMAND readelf -d ${petsc_library} OUTPUT_VARIABLE needed ERROR_QUIET)
    if(needed MATCHES "[[]lib${mpi_name}[.]so")
      set(petsc_matches ON)
    endif()
  endif()
  if(petsc_matches)
    add_executable(petsc_cg reference/petsc_cg.c)
    target_link_libraries(petsc_cg PRIVATE PkgConfig::PETSC MPI::MPI_C)
    target_compile_options(petsc_cg PRIVATE -Wno-unused-parameter)
    # (ranks grid rtol): odd grids, rows not divisible by the ranks
    # (ranks grid rtol variants): odd grids, rows not divisible by the ranks (PETSc starts in a second)
    set(cg_cases "1 9x7 1e-8 classic,pipelined" "2 40x30 1e-8 pipelined" "3 31x17 1e-6 classic,pipelined"
                 "4 25x40 1e-10 classic" "5 33x21 1e-7 pipelined")
    if(NOT TANDEM_FULL_VARIANTS)
      set(cg_cases "3 31x17 1e-6 classic,pipelined")
    endif()
    foreach(case ${cg_cases})
      separate_arguments(case UNIX_COMMAND "${case}")
      list(GET case 0 ranks)
      list(GET case 1 grid)
      list(GET case 2 rtol)
      list(GET case 3 variants)
      string(REPLACE "," ";" variants "${variants}")
      foreach(variant ${variants})
        tandem_app_test(cg_np${ranks}_${variant}_vs_petsc ${ranks} COMMAND cg_vs_petsc.sh ${cg} $<TARGET_FILE:petsc_cg> ${grid} ${rtol} ${variant})
      endforeach()
    endforeach()
    if(TANDEM_FULL_VARIANTS)
      tandem_app_test(cg_np3_thread_vs_petsc 3 ENV TANDEM_PROGRESS=thread COMMAND cg_vs_petsc.sh ${cg} $<TARGET_FILE:petsc_cg> 31x17 1e-6 pipelined)
    endif()
  else()
    message(STATUS "Tandem: no PETSc built with this MPI (Debian: petsc-dev, Open MPI's): tandem-cg is checked against its own classic variant")
  endif()
  # without PETSc, and through dedicated collective processes (which PETSc's program cannot share a job
  # with): the last line of the two variants against each other
  tandem_app_test(cg_np4_dcp 4 ENV TANDEM_PROGRESS=dcp TANDEM_DCP_COUNT=1 COMMAND cg_variants_agree.sh ${cg} 31x17 1e-6)
  tandem_app_test(cg_np3_variants 3 COMMAND cg_variants_agree.sh ${cg} 20x9 1e-9)
  tandem_app_test(cg_np3_split 3 ENV TANDEM_PROGRESS=split COMMAND cg_variants_agree.sh ${cg} 20x9 1e-9)
  tandem_tool_test(cg_bad_grid [1-9] "--grid 10: expected MxN, two positive numbers" ${cg} --grid 10)
  tandem_tool_test(cg_no_grid [1-9] "--grid MxN is missing" ${cg})
  tandem_tool_test(cg_bad_rtol [1-9] "--rtol 2: expected a number between 0 and 1" ${cg} --grid 4x4 --rtol 2)
  tandem_tool_test(cg_bad_variant [1-9] "--variant blocking: expected classic or pipelined" ${cg} --grid 4x4 --variant blocking)
  tandem_tool_test(cg_help 0 "usage: tandem-cg --grid MxN" ${cg} --help)
  tandem_tool_test(cg_last_line 0 "iterations [0-9]+ relres [0-9.e+-]+ error [0-9.e+-]+\n" ${cg} --grid 12x10 --rtol 1e-8)
endif()
