# The tools (tandem-model, tandem-bench, tandem-run): their tables, their options and their errors.
# Included last: the tandem-run tests run the plain MPI program of the interposer tests.
if(TARGET tandem-model)
  add_test(NAME tandem_model_split_tree COMMAND tandem-model split-tree --cores 64 --json)
  set_tests_properties(tandem_model_split_tree PROPERTIES
    PASS_REGULAR_EXPRESSION "\"best\": {\"N\": 51, \"S\": 0")
  # a symmetric bidirectional torus without start-up costs: the bucket algorithm meets the bound, in
  # its closed form and in the cost of its schedules (a vector that splits evenly: 3072 x 1024 doubles)
  add_test(NAME tandem_model_bounds
    COMMAND tandem-model bounds --collective allreduce --dims 8x8x8 --bytes 25165824 --alpha 0 --json)
  set_tests_properties(tandem_model_bounds PROPERTIES
    PASS_REGULAR_EXPRESSION "\"lower bound\": 0.0071163904, \"ring\": [0-9.e-]+, \"torus bucket \\(bidirectional\\)\": 0.0071163904,.*\"schedule_costs\": {\"ring\": [0-9.e-]+, \"torus bucket \\(bidirectional\\)\": 0.0071163904,")
  add_test(NAME tandem_model_bad_loggp COMMAND tandem-model bounds --dims 4x4 --loggp /nonexistent)
  set_tests_properties(tandem_model_bad_loggp PROPERTIES
    PASS_REGULAR_EXPRESSION "--loggp /nonexistent: not a file written by tandem-model loggp")
  # all of alpha shared: the bucket's 8x8x8 allreduce starts up once per round, 2 x 3 x 7 rounds
  add_test(NAME tandem_model_latency
    COMMAND tandem-model bounds --collective allreduce --dims 8x8x8 --bytes 25165824 --alpha 1e-6 --latency 1e-6
            --beta 1e-30 --gamma 1e-30 --json)
  set_tests_properties(tandem_model_latency PROPERTIES
    PASS_REGULAR_EXPRESSION "\"latency\": 1e-06, .*\"torus bucket \\(bidirectional\\)\": 4.2e-05,.*\"schedule_costs\": {[^}]*\"torus bucket \\(bidirectional\\)\": 4.2e-05,")
  add_test(NAME tandem_model_bad_latency COMMAND tandem-model bounds --dims 4x4 --alpha 1e-6 --latency 2e-6)
  set_tests_properties(tandem_model_bad_latency PROPERTIES
    PASS_REGULAR_EXPRESSION "--latency 2e-06: expected 0 to alpha")
  # tandem-bench refuses a mode it does not know, in the latency table and the overlap sweep
  foreach(variant latency overlap)
    set(extra "")
    if(variant STREQUAL overlap)
      set(extra --overlap)
    endif()
    add_test(NAME tandem_bench_bad_mode_${variant}
      COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 ${tandem_preflags} $<TARGET_FILE:tandem-bench> ${extra}
              --modes tandem,nonsense --csv ${CMAKE_CURRENT_BINARY_DIR}/bad_mode.csv)
    set_tests_properties(tandem_bench_bad_mode_${variant} PROPERTIES TIMEOUT 120
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
      PASS_REGULAR_EXPRESSION "--modes: unknown mode nonsense; known: ")
  endforeach()
  # --algorithms: each named algorithm is forced and runs (its row names what ran), beside the choice
  add_test(NAME tandem_bench_forced_algorithms
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${tandem_preflags} $<TARGET_FILE:tandem-bench>
            --collectives allreduce --sizes 64 --reps 1 --iters 2 --algorithms ring,rabenseifner
            --csv ${CMAKE_CURRENT_BINARY_DIR}/forced_algorithms.csv)
  set_tests_properties(tandem_bench_forced_algorithms PROPERTIES TIMEOUT 120
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    PASS_REGULAR_EXPRESSION "allreduce_recursive_doubling\n +forced +ring [^\n]* choice/this [0-9.]+ +allreduce_ring\n +forced +rabenseifner [^\n]* allreduce_rabenseifner\n")
  add_test(NAME tandem_bench_bad_algorithm
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 ${tandem_preflags} $<TARGET_FILE:tandem-bench>
            --collectives allgather --algorithms ring,rabenseifner --csv ${CMAKE_CURRENT_BINARY_DIR}/bad_algorithm.csv)
  set_tests_properties(tandem_bench_bad_algorithm PROPERTIES TIMEOUT 120
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    PASS_REGULAR_EXPRESSION "--algorithms: no collective measured has an algorithm 'rabenseifner'; known:\n  allgather: auto bruck ring")
  add_test(NAME tandem_bench_bad_warmup
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 ${tandem_preflags} $<TARGET_FILE:tandem-bench>
            --warmup -1 --csv ${CMAKE_CURRENT_BINARY_DIR}/bad_warmup.csv)
  set_tests_properties(tandem_bench_bad_warmup PROPERTIES TIMEOUT 120
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    PASS_REGULAR_EXPRESSION "--warmup wants a count from 0 to 1000, not '-1'")
  add_test(NAME tandem_model_loggp_one_rank
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 ${tandem_preflags} $<TARGET_FILE:tandem-model> loggp)
  set_tests_properties(tandem_model_loggp_one_rank PROPERTIES TIMEOUT 120
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    PASS_REGULAR_EXPRESSION "needs 2 ranks or more")
  # the machine's parameters, measured between two ranks and saved
  add_test(NAME tandem_model_loggp
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${tandem_preflags} $<TARGET_FILE:tandem-model> loggp
            --reps 3 --save ${CMAKE_CURRENT_BINARY_DIR}/loggp.txt)
  set_tests_properties(tandem_model_loggp PROPERTIES TIMEOUT 300
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    PASS_REGULAR_EXPRESSION "alpha [0-9.e-]+\nbeta [0-9.e-]+\ngamma [0-9.e-]+\n.*saved in")
endif()

# tandem-run: the plain program, unmodified, in each progress mode (options it does not know go to mpirun).
if(NOT TANDEM_SANITIZE AND TANDEM_BUILD_TOOLS)
  foreach(progress inline thread)
    add_test(NAME tandem_run_${progress}
      COMMAND ${PROJECT_BINARY_DIR}/tools/tandem-run --progress ${progress} --interpose all -n 3 ${tandem_preflags}
              $<TARGET_FILE:mpi_program>)
    set_tests_properties(tandem_run_${progress} PROPERTIES TIMEOUT 300 ENVIRONMENT
      "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;EXPECT_INTERPOSED=1;TANDEM_VERBOSE=1"
      PASS_REGULAR_EXPRESSION "rank 0: interposing all collectives.*mpi_program \\(3 ranks\\): [0-9]+ checks, 0 failed: PASS")
  endforeach()
  add_test(NAME tandem_run_bad_mpi COMMAND ${PROJECT_BINARY_DIR}/tools/tandem-run --mpi lam -n 2 true)
  set_tests_properties(tandem_run_bad_mpi PROPERTIES PASS_REGULAR_EXPRESSION "--mpi lam: expected openmpi or mpich")
endif()
