# The tools (tandem-model, tandem-bench, tandem-run): their tables, their options and their errors.
# Included last: the tandem-run tests run the plain MPI program of the interposer tests.

# tandem_tool_test(<name> <status> <regex> <command>...): the command exits with <status> (a regex: 0,
# or [1-9] for a failure) and its output, stdout and stderr, matches <regex>. PASS_REGULAR_EXPRESSION
# alone ignores the exit status: a shell appends it to the output. No ';' in <regex>: the property
# splits there into regexes of which any one passes ("[;]" matches one).
function(tandem_tool_test name status regex)
  add_test(NAME ${name} COMMAND sh -c "\"$@\" 2>&1\necho \"exit status $?\"" sh ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    PASS_REGULAR_EXPRESSION "${regex}.*exit status ${status}\n")
endfunction()

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
  # the CDCP paper's 512 ranks, 8 bytes, start-up mostly shared latency: an optimum inside the ratios
  tandem_tool_test(tandem_model_dcp 0 "\"segment\": 65536,.*\"direct\": {\"latency\": 7.2003[0-9]*e-05.*\"best_ratio\": 7,.*\"ratio\": 511"
    $<TARGET_FILE:tandem-model> dcp --ranks 512 --bytes 8 --alpha 4e-6 --latency 3.35e-6 --json)
  tandem_tool_test(tandem_model_dcp_table 0 "recommended: 1:7 \\(64 DCPs of the 512 ranks\\): iteration"
    $<TARGET_FILE:tandem-model> dcp --ranks 512 --bytes 8 --alpha 4e-6 --latency 3.35e-6 --compute 5e-5)
  tandem_tool_test(tandem_model_dcp_no_ranks [1-9] "needs --ranks N, 2 or more" $<TARGET_FILE:tandem-model> dcp)
  tandem_tool_test(tandem_model_dcp_bad_compute [1-9] "--compute wants seconds, 0 or more, not '-1'"
    $<TARGET_FILE:tandem-model> dcp --ranks 8 --compute -1)
  tandem_tool_test(tandem_model_dcp_bad_segment [1-9] "--segment wants a number of bytes, 0 or more, not 'big'"
    $<TARGET_FILE:tandem-model> dcp --ranks 8 --segment big)
  tandem_tool_test(tandem_model_bad_loggp [1-9] "--loggp /nonexistent: not a file written by tandem-model loggp"
    $<TARGET_FILE:tandem-model> bounds --dims 4x4 --loggp /nonexistent)
  # all of alpha shared: the bucket's 8x8x8 allreduce starts up once per round, 2 x 3 x 7 rounds
  add_test(NAME tandem_model_latency
    COMMAND tandem-model bounds --collective allreduce --dims 8x8x8 --bytes 25165824 --alpha 1e-6 --latency 1e-6
            --beta 1e-30 --gamma 1e-30 --json)
  set_tests_properties(tandem_model_latency PROPERTIES
    PASS_REGULAR_EXPRESSION "\"latency\": 1e-06, .*\"torus bucket \\(bidirectional\\)\": 4.2e-05,.*\"schedule_costs\": {[^}]*\"torus bucket \\(bidirectional\\)\": 4.2e-05,")
  tandem_tool_test(tandem_model_bad_latency [1-9] "--latency 2e-06: expected 0 to alpha"
    $<TARGET_FILE:tandem-model> bounds --dims 4x4 --alpha 1e-6 --latency 2e-6)
  # tandem-bench refuses a mode it does not know, in the latency table and the overlap sweep
  foreach(variant latency overlap)
    set(extra "")
    set(good_mode tandem)
    if(variant STREQUAL overlap)
      set(extra --overlap)
      set(good_mode tandem-inline)
    endif()
    tandem_tool_test(tandem_bench_bad_mode_${variant} [1-9] "--modes: unknown mode nonsense[;] known: "
      $<TARGET_FILE:tandem-bench> ${extra} --modes ${good_mode},nonsense --csv ${CMAKE_CURRENT_BINARY_DIR}/bad_mode.csv)
  endforeach()
  # --algorithms: each named algorithm is forced and runs (its row names what ran), beside the choice
  add_test(NAME tandem_bench_forced_algorithms
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${tandem_preflags} $<TARGET_FILE:tandem-bench>
            --collectives allreduce --sizes 64 --reps 1 --iters 2 --algorithms ring,rabenseifner
            --csv ${CMAKE_CURRENT_BINARY_DIR}/forced_algorithms.csv)
  set_tests_properties(tandem_bench_forced_algorithms PROPERTIES TIMEOUT 120
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    PASS_REGULAR_EXPRESSION "allreduce_(node|recursive_doubling)\n +forced +ring [^\n]* choice/this [0-9.]+ +allreduce_ring\n +forced +rabenseifner [^\n]* allreduce_rabenseifner\n")
  tandem_tool_test(tandem_bench_bad_algorithm [1-9]
    "--algorithms: no collective measured has an algorithm 'rabenseifner'[;] known:\n  allgather: auto bruck ring"
    $<TARGET_FILE:tandem-bench> --collectives allgather --algorithms ring,rabenseifner
    --csv ${CMAKE_CURRENT_BINARY_DIR}/bad_algorithm.csv)
  tandem_tool_test(tandem_bench_bad_warmup [1-9] "--warmup wants a count from 0 to 1000, not '-1'"
    $<TARGET_FILE:tandem-bench> --warmup -1 --csv ${CMAKE_CURRENT_BINARY_DIR}/bad_warmup.csv)
  tandem_tool_test(tandem_model_loggp_one_rank [1-9] "needs 2 ranks or more" $<TARGET_FILE:tandem-model> loggp)
  # the CPU overhead of a ring allreduce of 512 doubles on 4 ranks: 2 (p - 1) messages of a quarter of
  # the vector each way, (p - 1) quarters reduced; with a LogGP table, its share of the latency
  tandem_tool_test(tandem_model_overhead_ring 0
    "\"algorithm\": \"ring\".*\"ranks_work\": .{\"sends\": 6, \"sent\": 6144, \"recvs\": 6, \"received\": 6144, \"reduced\": 3072"
    $<TARGET_FILE:tandem-model> overhead --collective allreduce --algorithm ring --ranks 4 --bytes 4096 --json)
  tandem_tool_test(tandem_model_overhead_table 0 "CPU time: [0-9.e-]+ s at most.*of the latency\n.*inline"
    $<TARGET_FILE:tandem-model> overhead --collective bcast --ranks 8 --bytes 65536
    --loggp ${PROJECT_SOURCE_DIR}/tests/data/loggp_example.txt)
  # its latency by the table: rank 1's round is a lone message of 8 bytes, half the round trip measured
  # (2.0058e-05 s between the 4 and 16 bytes measured), of which its o_r of 3.02 us is CPU time
  tandem_tool_test(tandem_model_overhead_latency 0 "\"latency\": 1.0029e-05, \"cpu_most\": 3.02e-06, .*\"share\": 0.3011,"
    $<TARGET_FILE:tandem-model> overhead --collective bcast --ranks 2 --bytes 8 --json
    --loggp ${PROJECT_SOURCE_DIR}/tests/data/loggp_example.txt)
  # recursive doubling of 64 KiB on 2 ranks, one round: the message's one-way time (7.2557e-05 s), then
  # the reduction of what it brought (65536 B at 1.5e-10 s/B), which waits for it
  tandem_tool_test(tandem_model_overhead_reduce_after 0 "\"latency\": 8.23874e-05, \"cpu_most\": 1.18504e-05,"
    $<TARGET_FILE:tandem-model> overhead --collective allreduce --algorithm recursive_doubling --ranks 2
    --bytes 65536 --json --loggp ${PROJECT_SOURCE_DIR}/tests/data/loggp_example.txt)
  # binomial from rank 0: 0 -> 2, then 2 -> 3, a lone message's one-way time (10.03 us) each, rank 3
  # waiting for rank 2 (2.006e-05 s on the grid, where every peer is one link away); on a ring of 4
  # (--dims 4) rank 2 is two links from the root: its message arrives L (5.002 us) later
  tandem_tool_test(tandem_model_overhead_hops 0 "\"latency\": 2.506e-05,"
    $<TARGET_FILE:tandem-model> overhead --collective bcast --algorithm binomial --ranks 4 --dims 4 --bytes 8 --json
    --loggp ${PROJECT_SOURCE_DIR}/tests/data/loggp_example.txt)
  tandem_tool_test(tandem_model_overhead_bad_dims [1-9] "--dims 8: 8 ranks, not --ranks 4"
    $<TARGET_FILE:tandem-model> overhead --collective bcast --ranks 4 --dims 8)
  # --agent: that agent's line only (a dedicated process leaves the latency less one o_s and one o_r)
  tandem_tool_test(tandem_model_overhead_agent 0 "agent +left to app .s.\ndcp +5.009e-06 +one message to the DCP"
    $<TARGET_FILE:tandem-model> overhead --collective bcast --ranks 2 --bytes 8 --agent dcp
    --loggp ${PROJECT_SOURCE_DIR}/tests/data/loggp_example.txt)
  # --node-size: nodes of 4 ranks; the node-aware allreduce of 4 KiB: each node's leader reduces its 3
  # others' vectors and a half from the other leader (recursive halving between the two), every rank
  # copies its vector in and the result out of the node's cells
  tandem_tool_test(tandem_model_overhead_node 0
    "\"algorithm\": \"node\".*\"ranks_work\": .{\"sends\": 2, \"sent\": 4096, \"recvs\": 2, \"received\": 4096, \"reduced\": 14336, \"copied\": 8192, [^}]*}, {\"sends\": 0, \"sent\": 0, \"recvs\": 0, \"received\": 0, \"reduced\": 0, \"copied\": 8192,"
    $<TARGET_FILE:tandem-model> overhead --collective allreduce --algorithm node --ranks 8 --node-size 4 --bytes 4096 --json)
  tandem_tool_test(tandem_model_overhead_node_alone [1-9] "--algorithm node: needs ranks that share nodes"
    $<TARGET_FILE:tandem-model> overhead --collective allreduce --algorithm node --ranks 8)
  tandem_tool_test(tandem_model_overhead_bad_agent [1-9] "--agent wants inline, thread, split or dcp, not 'threads'"
    $<TARGET_FILE:tandem-model> overhead --collective bcast --ranks 2 --agent threads)
  tandem_tool_test(tandem_model_overhead_bad_call [1-9] "--call wants seconds, 0 or more, not '-1'"
    $<TARGET_FILE:tandem-model> overhead --collective bcast --ranks 2 --call -1)
  # tandem-bench --cpu-overhead: a row per mode, the model beside Tandem's inline mode (the table given)
  add_test(NAME tandem_bench_cpu_overhead
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${tandem_preflags} $<TARGET_FILE:tandem-bench>
            --cpu-overhead --collectives bcast --sizes 1K --reps 1 --iters 2
            --csv ${CMAKE_CURRENT_BINARY_DIR}/cpu_overhead.csv)
  set_tests_properties(tandem_bench_cpu_overhead PROPERTIES TIMEOUT 120
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;TANDEM_LOGGP=${PROJECT_SOURCE_DIR}/tests/data/loggp_example.txt"
    PASS_REGULAR_EXPRESSION "bcast, 1024 bytes, 2 ranks. Tandem's algorithm (bcast_node. model: node|bcast_binomial. model: binomial).*\n  mpi\\+test +[0-9.e-]+ .*\n  mpi-blocking +[0-9.e-]+ .*\n  tandem-inline\\+test +[0-9.e-]+ +[0-9.e-]+ +[0-9.e-]+ +[0-9.e-]+ +[0-9.e-]+ (overlap|cpu clock) +[0-9.]+% +[0-9.e-]+ +[0-9.]+%\n.*tandem-dcp +.not available: start the job with TANDEM_PROGRESS=dcp.")
  tandem_tool_test(tandem_bench_cpu_overhead_and_overlap [1-9]
    "tandem-bench: --overlap, --cpu-overhead and --show-placement exclude each other"
    $<TARGET_FILE:tandem-bench> --cpu-overhead --overlap)
  tandem_tool_test(tandem_bench_overhead_bad_mode [1-9] "--modes: unknown mode tandem[;] known: "
    $<TARGET_FILE:tandem-bench> --cpu-overhead --modes tandem --csv ${CMAKE_CURRENT_BINARY_DIR}/bad_mode.csv)
  tandem_tool_test(tandem_model_overhead_bad_collective [1-9] "--collective wants a collective of .* not 'alltoallw'"
    $<TARGET_FILE:tandem-model> overhead --collective alltoallw --ranks 4)
  tandem_tool_test(tandem_model_overhead_bad_algorithm [1-9] "--algorithm ring: not one of bcast's .auto binomial"
    $<TARGET_FILE:tandem-model> overhead --collective bcast --algorithm ring --ranks 4)
  tandem_tool_test(tandem_model_overhead_no_ranks [1-9] "needs --ranks, 2 or more" $<TARGET_FILE:tandem-model> overhead)
  # a buffer past INT_MAX elements: an allgather's holds a block per rank, a bcast's one vector
  tandem_tool_test(tandem_model_overhead_too_many [1-9] "--bytes 1000000000: more than INT_MAX elements in a buffer"
    $<TARGET_FILE:tandem-model> overhead --collective allgather --ranks 4 --bytes 1000000000)
  tandem_tool_test(tandem_model_overhead_large_bcast 0 "bcast .* on 64 ranks, 1000000000 bytes"
    $<TARGET_FILE:tandem-model> overhead --collective bcast --algorithm binomial --ranks 64 --bytes 1000000000)
  foreach(bad "4,16" "1,64,16" "1,2x" "1")
    string(MAKE_C_IDENTIFIER "${bad}" id)
    tandem_tool_test(tandem_model_loggp_bad_sizes_${id} [1-9]
      "tandem-model loggp: --sizes wants .*sizes.* not '${bad}'" $<TARGET_FILE:tandem-model> loggp --sizes ${bad})
  endforeach()
  tandem_tool_test(tandem_model_loggp_late_mpi_thread [1-9] "tandem-model loggp: --mpi-thread single must be the first option"
    $<TARGET_FILE:tandem-model> loggp --reps 3 --mpi-thread single)
  tandem_tool_test(tandem_model_loggp_bad_mpi_thread [1-9] "tandem-model loggp: --mpi-thread wants single, not 'double'"
    $<TARGET_FILE:tandem-model> loggp --mpi-thread double)
  # the machine's parameters, measured between two ranks and saved (at the thread level asked for)
  add_test(NAME tandem_model_loggp_single
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${tandem_preflags} $<TARGET_FILE:tandem-model> loggp
            --mpi-thread single --reps 3 --sizes 1,64)
  set_tests_properties(tandem_model_loggp_single PROPERTIES TIMEOUT 300
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    PASS_REGULAR_EXPRESSION "LogGP between ranks 0 and 1 of 2, medians of 3, at MPI_THREAD_SINGLE")
  add_test(NAME tandem_model_loggp
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${tandem_preflags} $<TARGET_FILE:tandem-model> loggp
            --reps 3 --save ${CMAKE_CURRENT_BINARY_DIR}/loggp.txt)
  set_tests_properties(tandem_model_loggp PROPERTIES TIMEOUT 300
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    PASS_REGULAR_EXPRESSION "at MPI_THREAD_MULTIPLE.*alpha [0-9.e-]+\nbeta [0-9.e-]+\ngamma [0-9.e-]+\n.*\nWith these values auto moves long data inside a node (through cells|in messages).*saved in")

  # --help lists every option: tandem-bench and tandem-model print it from the table their parser
  # reads, so that it cannot miss one; these tests see that it prints, exits 0 and names the options.
  # One process without mpiexec (MPI's singleton start), and under mpiexec where rank 0 alone prints.
  tandem_tool_test(tandem_bench_help 0
    "usage: .*tandem-bench --overlap.*tandem-bench --cpu-overhead.*-h, --help.*--mpi-thread single.*--quick.*--collectives LIST.*--sizes LIST.*--reps N.*--iters N.*--warmup N.*--modes LIST.*--algorithms LIST.*--compute busy.sleep.*--tests N.*--csv FILE.*modes: tandem tandem-blocking mpi-nonblocking mpi-blocking.*--cpu-overhead's default modes: mpi-blocking,"
    $<TARGET_FILE:tandem-bench> --help)
  tandem_tool_test(tandem_bench_help_mpiexec 0 "usage: .*--show-placement.*--csv FILE"
    ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${tandem_preflags} $<TARGET_FILE:tandem-bench> -h)
  set_tests_properties(tandem_bench_help_mpiexec PROPERTIES FAIL_REGULAR_EXPRESSION "usage:.*usage:")
  tandem_tool_test(tandem_model_help 0
    "usage: tandem-model split-tree.*split-tree: .*--cores N.*--variable.*--json.*bounds: .*--collective NAME.*--dims DIMS.*--ranks P.*--bytes N.*--alpha A.*--beta B.*--gamma G.*--latency L.*--loggp FILE.*--unidirectional.*loggp: .*--reps R.*--save FILE"
    $<TARGET_FILE:tandem-model> --help)
  tandem_tool_test(tandem_model_bounds_help 0 "usage: tandem-model bounds.*bounds: .*--dims DIMS.*--unidirectional"
    $<TARGET_FILE:tandem-model> bounds -h)
  set_tests_properties(tandem_model_bounds_help PROPERTIES FAIL_REGULAR_EXPRESSION "split-tree|--cores|--reps")
  tandem_tool_test(tandem_model_loggp_help 0 "usage: mpirun -n 2 tandem-model loggp.*--sizes LIST.*--reps R.*--save FILE.*--json"
    ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${tandem_preflags} $<TARGET_FILE:tandem-model> loggp --help)
  set_tests_properties(tandem_model_loggp_help PROPERTIES FAIL_REGULAR_EXPRESSION "usage:.*usage:")

  # A bad option: an error that names it and a failing exit, on every rank alike (no hang). One
  # process each: Open MPI's mpiexec takes two seconds to report a failed rank.
  tandem_tool_test(tandem_bench_unknown_option [1-9] "tandem-bench: unknown option --sise[;] see tandem-bench --help"
    $<TARGET_FILE:tandem-bench> --sise 8)
  tandem_tool_test(tandem_bench_missing_value [1-9] "tandem-bench: --sizes needs a value"
    $<TARGET_FILE:tandem-bench> --sizes --reps 3)
  tandem_tool_test(tandem_bench_bad_size [1-9] "tandem-bench: --sizes wants sizes in bytes such as 8,64K,1M .*, not '1G'"
    $<TARGET_FILE:tandem-bench> --sizes 8,1G)
  tandem_tool_test(tandem_bench_bad_reps [1-9] "tandem-bench: --reps wants a count from 1 to 64, not 'x'"
    $<TARGET_FILE:tandem-bench> --reps x)
  tandem_tool_test(tandem_bench_bad_collective [1-9] "tandem-bench: --collectives: unknown collective allreduse[;] known: allreduce"
    $<TARGET_FILE:tandem-bench> --collectives bcast,allreduse)
  tandem_tool_test(tandem_bench_overlap_only [1-9] "tandem-bench: --tests is not an option of the latency table"
    $<TARGET_FILE:tandem-bench> --tests 3)
  tandem_tool_test(tandem_bench_bad_compute [1-9] "tandem-bench: --compute wants busy or sleep, not 'idle'"
    $<TARGET_FILE:tandem-bench> --overlap --compute idle)
  tandem_tool_test(tandem_bench_late_mpi_thread [1-9] "tandem-bench: --mpi-thread single must be the first option"
    $<TARGET_FILE:tandem-bench> --quick --mpi-thread single)
  tandem_tool_test(tandem_model_unknown_command [1-9] "tandem-model: unknown command bound[;] see tandem-model --help"
    $<TARGET_FILE:tandem-model> bound --dims 4x4)
  tandem_tool_test(tandem_model_unknown_option [1-9]
    "tandem-model bounds: unknown option --dim[;] see tandem-model bounds --help"
    $<TARGET_FILE:tandem-model> bounds --dim 4x4)
  tandem_tool_test(tandem_model_missing_value [1-9] "tandem-model split-tree: --cores needs a value"
    $<TARGET_FILE:tandem-model> split-tree --json --cores)
  tandem_tool_test(tandem_model_bad_number [1-9] "tandem-model bounds: --alpha wants seconds, 0 or more, not '1us'"
    $<TARGET_FILE:tandem-model> bounds --dims 4x4 --alpha 1us)
  tandem_tool_test(tandem_model_bad_count [1-9] "tandem-model loggp: --reps wants a count from 1 to 100000, not '0'"
    $<TARGET_FILE:tandem-model> loggp --reps 0)
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
  # --dcp-ratio: dedicated processes launched on top of -n 3 (2 more), the program's world keeps 3 ranks
  add_test(NAME tandem_run_dcp
    COMMAND ${PROJECT_BINARY_DIR}/tools/tandem-run --dcp-ratio 2 --interpose all -n 3 ${tandem_preflags}
            $<TARGET_FILE:mpi_program>)
  set_tests_properties(tandem_run_dcp PROPERTIES TIMEOUT 300 ENVIRONMENT
    "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;EXPECT_INTERPOSED=1;EXPECT_WORLD_SIZE=3;TANDEM_VERBOSE=1"
    PASS_REGULAR_EXPRESSION "2 dedicated collective processes serve 3 application ranks.*dcp progress.*mpi_program \\(3 ranks\\): [0-9]+ checks, 0 failed: PASS")
endif()

# tandem-run's options: --help and the errors. Options it does not know go to mpirun: no error of its own.
if(TANDEM_BUILD_TOOLS)
  set(tandem_run ${PROJECT_BINARY_DIR}/tools/tandem-run)
  tandem_tool_test(tandem_run_help 0
    "usage: tandem-run .*-h, --help.*--progress MODE.*--dcp-ratio R.*--placement POLICY.*--interpose WHICH.*--color-threads K.*--mpi openmpi.mpich.*--lib PATH.*--dry-run"
    ${tandem_run} --help)
  tandem_tool_test(tandem_run_bad_mpi [1-9] "tandem-run: --mpi lam: expected openmpi or mpich" ${tandem_run} --mpi lam -n 2 true)
  tandem_tool_test(tandem_run_missing_value [1-9] "tandem-run: --progress needs a value" ${tandem_run} --progress)
  tandem_tool_test(tandem_run_bad_progress [1-9] "tandem-run: --progress threads: expected inline, thread, split or dcp"
    ${tandem_run} --progress threads -n 2 true)
  # --dcp-ratio: -n N (or -np) grows by ceil(N/R), dcp progress with that many dedicated processes
  tandem_tool_test(tandem_run_dcp_ranks 0 "TANDEM_PROGRESS.dcp.*TANDEM_DCP_COUNT.3.* -np 10 prog -n 1"
    ${tandem_run} --dry-run --dcp-ratio 3 -np 7 prog -n 1)
  tandem_tool_test(tandem_run_dcp_bad_ratio [1-9]
    "tandem-run: --dcp-ratio 0: expected a number of application ranks per dedicated process, 1 or more"
    ${tandem_run} --dcp-ratio 0 -n 2 true)
  tandem_tool_test(tandem_run_dcp_no_ranks [1-9] "tandem-run: --dcp-ratio 2: give the application's ranks as -n N"
    ${tandem_run} --dcp-ratio 2 true)
  tandem_tool_test(tandem_run_dcp_other_progress [1-9] "tandem-run: --dcp-ratio runs dcp progress, not --progress thread"
    ${tandem_run} --progress thread --dcp-ratio 2 -n 2 true)
  tandem_tool_test(tandem_run_dcp_interpose_off [1-9] "tandem-run: --dcp-ratio needs the interposer: not with --interpose off"
    ${tandem_run} --interpose off --dcp-ratio 2 -n 2 true)
  tandem_tool_test(tandem_run_dcp_forms 0 "-c 10 prog.*--np 10 prog --np=7"
    sh -c "\"$1\" --dry-run --dcp-ratio 3 -c 7 prog && \"$1\" --dry-run --dcp-ratio 3 --np=7 prog --np=7" sh ${tandem_run})
  # a program that would run without the added ranks (MPI_THREAD_MULTIPLE) must not see them: the job stops
  if(NOT TANDEM_SANITIZE)
    tandem_tool_test(tandem_run_dcp_multiple [1-9]
      "added ranks to serve this program's collectives, but it asks for MPI_THREAD_MULTIPLE, which dcp progress does not serve: the job stops"
      env THREAD_MULTIPLE=1 ${tandem_run} --dcp-ratio 2 -n 2 ${tandem_preflags} $<TARGET_FILE:mpi_program>)
  endif()
  # a shell script has no table for the parser and --help to share: the options of its parser (the
  # patterns "    --name)" of its loop) are compared with those --help lists at the start of its lines
  add_test(NAME tandem_run_help_complete COMMAND sh -c [=[
accepted=$(sed -n 's/^    \(-[^)]*\)).*/\1/p' "$1" | tr '|' '\n' | tr -d ' ' | sort)
listed=$("$1" --help | awk '/^  -/ {
  i = 1
  while (i <= NF && $i ~ /^-/) {
    option = $i
    sub(/,$/, "", option)
    print option
    i++
  }
}' | sort)
if [ -n "$accepted" ] && [ "$accepted" = "$listed" ]
then echo "the parser and --help:" $listed
else printf 'the parser takes:\n%s\n--help lists:\n%s\n' "$accepted" "$listed"
fi]=] sh ${tandem_run})
  set_tests_properties(tandem_run_help_complete PROPERTIES TIMEOUT 60
    PASS_REGULAR_EXPRESSION "the parser and --help: .*--progress")
endif()
