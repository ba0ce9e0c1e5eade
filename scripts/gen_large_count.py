#!/usr/bin/env python3
"""Generates Tandem's large-count (MPI-4 `_c`) functions from the table below:

  include/tandem_large_count.h            TDM_Xxx_c, TDM_Ixxx_c, TDM_Xxx_init_c (declarations)
  src/core/api_large_count.c              their definitions: the collectives of one count run in chunks
                                          where the data needs them (chunked_calls.h), the v and w forms
                                          take MPI_Aint displacements and counts that fit in int
  src/interpose/interpose_large_count.c   the interposer's MPI_Xxx_c, MPI_Ixxx_c, MPI_Xxx_init_c (MPI 4)

Run after changing the table: python3 scripts/gen_large_count.py
With --check it writes nothing and fails if a generated file differs from what the table gives (ctest).
"""
import pathlib
import sys

# Parameters: (kind, name). Kinds:
#   sbuf rbuf buf      buffers                      count  MPI_Count
#   type op root comm  as in the int functions      counts MPI_Count[] of n blocks, converted to int
#   displs             MPI_Aint[] of element (or alltoallw's byte) displacements, kept
#   adispls            as displs (neighbour alltoallw, whose int form takes MPI_Aint too)
#   types              MPI_Datatype[]
# An array's suffix says which side and how many: .s (send: skipped in place), .r (receive), .root (at
# the root only); n = the communicator's size, or the neighbour counts (out for send, in for receive).
# The collectives of one count: (C function, its leading arguments) of chunked_calls.h; their arguments
# follow in the function's order (root 0 where the collective has none).
CHUNKED = {
    "bcast": ("tdm_chunked_elementwise", "TDM_COLL_BCAST, NULL, buffer, count, datatype, MPI_OP_NULL, root"),
    "reduce": ("tdm_chunked_elementwise", "TDM_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root"),
    "allreduce": ("tdm_chunked_elementwise", "TDM_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0"),
    "scan": ("tdm_chunked_elementwise", "TDM_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0"),
    "exscan": ("tdm_chunked_elementwise", "TDM_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0"),
    "reduce_scatter": ("tdm_chunked_reduce_scatter",
                       "TDM_COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcounts, 0, datatype, op"),
    "reduce_scatter_block": ("tdm_chunked_reduce_scatter",
                             "TDM_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, NULL, recvcount, datatype, op"),
}
for _name, _root in [("gather", "root"), ("scatter", "root"), ("allgather", "0"), ("alltoall", "0"),
                     ("neighbor_allgather", "0"), ("neighbor_alltoall", "0")]:
    CHUNKED[_name] = ("tdm_chunked_blocks", f"TDM_COLL_{_name.upper()}, sendbuf, sendcount, sendtype, recvbuf, "
                                            f"recvcount, recvtype, {_root}")

# The blocking collectives whose small calls on one node take the node's lines (api_lines.c): where the
# counts fit in int, their _c form tries the lines first, as the int form does, so that ranks calling
# either form of one call take the same path. (condition, tdm_lines_ call's arguments after fn)
LINES = {
    "bcast": ("count >= 0 && count <= INT_MAX", "buffer, (int)count, datatype, root, comm"),
    "reduce": ("count >= 0 && count <= INT_MAX", "sendbuf, recvbuf, (int)count, datatype, op, root, comm"),
    "allreduce": ("count >= 0 && count <= INT_MAX", "sendbuf, recvbuf, (int)count, datatype, op, comm"),
    "allgather": ("recvcount >= 0 && recvcount <= INT_MAX && (sendbuf == MPI_IN_PLACE || (sendcount >= 0 && "
                  "sendcount <= INT_MAX))",
                  "sendbuf, sendbuf == MPI_IN_PLACE ? 0 : (int)sendcount, sendtype, recvbuf, (int)recvcount, "
                  "recvtype, comm"),
}

COLLECTIVES = [
    ("bcast", "Bcast", [("buf", "buffer"), ("count", "count"), ("type", "datatype"), ("root", "root"), ("comm", "comm")]),
    ("reduce", "Reduce", [("sbuf", "sendbuf"), ("rbuf", "recvbuf"), ("count", "count"), ("type", "datatype"),
                          ("op", "op"), ("root", "root"), ("comm", "comm")]),
    ("allreduce", "Allreduce", [("sbuf", "sendbuf"), ("rbuf", "recvbuf"), ("count", "count"), ("type", "datatype"),
                                ("op", "op"), ("comm", "comm")]),
    ("gather", "Gather", [("sbuf", "sendbuf"), ("count", "sendcount"), ("type", "sendtype"), ("rbuf", "recvbuf"),
                          ("count", "recvcount"), ("type", "recvtype"), ("root", "root"), ("comm", "comm")]),
    ("gatherv", "Gatherv", [("sbuf", "sendbuf"), ("count", "sendcount"), ("type", "sendtype"), ("rbuf", "recvbuf"),
                            ("counts.root", "recvcounts"), ("displs.root", "displs"), ("type", "recvtype"),
                            ("root", "root"), ("comm", "comm")]),
    ("scatter", "Scatter", [("sbuf", "sendbuf"), ("count", "sendcount"), ("type", "sendtype"), ("rbuf", "recvbuf"),
                            ("count", "recvcount"), ("type", "recvtype"), ("root", "root"), ("comm", "comm")]),
    ("scatterv", "Scatterv", [("sbuf", "sendbuf"), ("counts.root", "sendcounts"), ("displs.root", "displs"),
                              ("type", "sendtype"), ("rbuf", "recvbuf"), ("count", "recvcount"), ("type", "recvtype"),
                              ("root", "root"), ("comm", "comm")]),
    ("allgather", "Allgather", [("sbuf", "sendbuf"), ("count", "sendcount"), ("type", "sendtype"),
                                ("rbuf", "recvbuf"), ("count", "recvcount"), ("type", "recvtype"), ("comm", "comm")]),
    ("allgatherv", "Allgatherv", [("sbuf", "sendbuf"), ("count", "sendcount"), ("type", "sendtype"),
                                  ("rbuf", "recvbuf"), ("counts.r", "recvcounts"), ("displs.r", "displs"),
                                  ("type", "recvtype"), ("comm", "comm")]),
    ("reduce_scatter", "Reduce_scatter", [("sbuf", "sendbuf"), ("rbuf", "recvbuf"), ("counts.r", "recvcounts"),
                                          ("type", "datatype"), ("op", "op"), ("comm", "comm")]),
    ("reduce_scatter_block", "Reduce_scatter_block", [("sbuf", "sendbuf"), ("rbuf", "recvbuf"),
                                                      ("count", "recvcount"), ("type", "datatype"), ("op", "op"),
                                                      ("comm", "comm")]),
    ("alltoall", "Alltoall", [("sbuf", "sendbuf"), ("count", "sendcount"), ("type", "sendtype"), ("rbuf", "recvbuf"),
                              ("count", "recvcount"), ("type", "recvtype"), ("comm", "comm")]),
    ("alltoallv", "Alltoallv", [("sbuf", "sendbuf"), ("counts.s", "sendcounts"), ("displs.s", "sdispls"),
                                ("type", "sendtype"), ("rbuf", "recvbuf"), ("counts.r", "recvcounts"),
                                ("displs.r", "rdispls"), ("type", "recvtype"), ("comm", "comm")]),
    ("alltoallw", "Alltoallw", [("sbuf", "sendbuf"), ("counts.s", "sendcounts"), ("displs.s", "sdispls"),
                                ("types", "sendtypes"), ("rbuf", "recvbuf"), ("counts.r", "recvcounts"),
                                ("displs.r", "rdispls"), ("types", "recvtypes"), ("comm", "comm")]),
    ("scan", "Scan", [("sbuf", "sendbuf"), ("rbuf", "recvbuf"), ("count", "count"), ("type", "datatype"),
                      ("op", "op"), ("comm", "comm")]),
    ("exscan", "Exscan", [("sbuf", "sendbuf"), ("rbuf", "recvbuf"), ("count", "count"), ("type", "datatype"),
                          ("op", "op"), ("comm", "comm")]),
    ("neighbor_allgather", "Neighbor_allgather", [("sbuf", "sendbuf"), ("count", "sendcount"), ("type", "sendtype"),
                                                  ("rbuf", "recvbuf"), ("count", "recvcount"), ("type", "recvtype"),
                                                  ("comm", "comm")]),
    ("neighbor_allgatherv", "Neighbor_allgatherv", [("sbuf", "sendbuf"), ("count", "sendcount"),
                                                    ("type", "sendtype"), ("rbuf", "recvbuf"),
                                                    ("counts.r", "recvcounts"), ("displs.r", "displs"),
                                                    ("type", "recvtype"), ("comm", "comm")]),
    ("neighbor_alltoall", "Neighbor_alltoall", [("sbuf", "sendbuf"), ("count", "sendcount"), ("type", "sendtype"),
                                                ("rbuf", "recvbuf"), ("count", "recvcount"), ("type", "recvtype"),
                                                ("comm", "comm")]),
    ("neighbor_alltoallv", "Neighbor_alltoallv", [("sbuf", "sendbuf"), ("counts.s", "sendcounts"),
                                                  ("displs.s", "sdispls"), ("type", "sendtype"), ("rbuf", "recvbuf"),
                                                  ("counts.r", "recvcounts"), ("displs.r", "rdispls"),
                                                  ("type", "recvtype"), ("comm", "comm")]),
    ("neighbor_alltoallw", "Neighbor_alltoallw", [("sbuf", "sendbuf"), ("counts.s", "sendcounts"),
                                                  ("adispls.s", "sdispls"), ("types", "sendtypes"),
                                                  ("rbuf", "recvbuf"), ("counts.r", "recvcounts"),
                                                  ("adispls.r", "rdispls"), ("types", "recvtypes"), ("comm", "comm")]),
]

C_TYPE = {"sbuf": "const void *{}", "rbuf": "void *{}", "buf": "void *{}", "count": "MPI_Count {}",
          "type": "MPI_Datatype {}", "op": "MPI_Op {}", "root": "int {}", "comm": "MPI_Comm {}",
          "counts": "const MPI_Count {}[]", "displs": "const MPI_Aint {}[]", "adispls": "const MPI_Aint {}[]",
          "types": "const MPI_Datatype {}[]"}


def kind(p):
    return p[0].split(".")[0]


def params(plist):
    return ", ".join(C_TYPE[kind(p)].format(p[1]) for p in plist)


def names(plist):
    return ", ".join(p[1] for p in plist)


def forms(name, cap, plist):
    """(function name, extra parameters, form) of the blocking, non-blocking and persistent functions."""
    return [(f"{cap}_c", "", "blocking"), (f"I{name}_c", ", TDM_Request *request", "nonblocking"),
            (f"{cap}_init_c", ", MPI_Info info, TDM_Request *request", "persistent")]


GENERATED = "/* Generated by scripts/gen_large_count.py from its table: edit that, not this file. */\n"


def header():
    out = [GENERATED, "#ifndef TANDEM_LARGE_COUNT_H\n#define TANDEM_LARGE_COUNT_H\n\n#include <mpi.h>\n\n"
           "#ifdef __cplusplus\nextern \"C\" {\n#endif\n#if defined(__GNUC__)\n#pragma GCC visibility push(default)\n#endif\n\n"
           "/* The large-count forms of MPI 4 (MPI_Count counts, MPI_Aint displacements). A call with more data\n"
           " * than TANDEM_CHUNK_BYTES runs in chunks of int counts; the v and w forms take any displacement, but\n"
           " * a count of theirs beyond INT_MAX is refused with MPI_ERR_COUNT naming it, on every rank (they\n"
           " * agree with one small allreduce per call; the interposer then leaves the call to MPI). */\n"]
    for name, cap, plist in COLLECTIVES:
        for fname, extra, _ in forms(name, cap, plist):
            out.append(f"int TDM_{fname}({params(plist)}{extra});\n")
    out.append("\n#if defined(__GNUC__)\n#pragma GCC visibility pop\n#endif\n#ifdef __cplusplus\n}\n#endif\n#endif\n")
    return "".join(out)


def conversions(name, plist, fn):
    """A v or w form: C statements converting its counts to int locals; returns (code, call arguments, frees)."""
    neighbor = name.startswith("neighbor")
    code, args, frees = [], [], []
    if any(kind(p) == "counts" for p in plist):
        if neighbor:
            code.append("    int n_in = 0, n_out = 0;\n    tdm_neighbor_degrees(comm, &n_in, &n_out);\n")
        else:
            code.append("    int n = tdm_large_blocks(comm);\n")
    if any(p[0] == "counts.root" for p in plist):
        code.append("    int at_root = tdm_large_is_root(comm, root);\n")
    code.append("    int rc = MPI_SUCCESS;\n")
    for p in plist:
        k, cname = kind(p), p[1]
        side = p[0].split(".")[1] if "." in p[0] else ""
        if k == "count":
            code.append(f"    int {cname}_ = 0;\n    if (rc == MPI_SUCCESS)\n"
                        f"        rc = tdm_count_from_large({fn}, \"{cname}\", {cname}, &{cname}_);\n")
            args.append(f"{cname}_")
        elif k == "counts":
            n = ("n_out" if side == "s" else "n_in") if neighbor else "n"
            cond = {"s": "sendbuf != MPI_IN_PLACE", "r": "1", "root": "at_root"}[side]
            code.append(f"    int *{cname}_ = NULL;\n    if (rc == MPI_SUCCESS && {cond})\n"
                        f"        rc = tdm_counts_from_large({fn}, \"{cname}\", {cname}, {n}, &{cname}_);\n")
            args.append(f"{cname}_")
            frees.append(f"{cname}_")
        elif k in ("displs", "adispls"):
            args.append(f"tdm_displs_of_aints({cname})")
        else:
            args.append(cname)
    code.append(f"    rc = tdm_large_agree({fn}, comm, rc);\n")
    return "".join(code), ", ".join(args), frees


def api_source():
    out = [GENERATED, "/*\n * The large-count functions of the API. The collectives of one count run in chunks where their data\n"
           " * needs them (chunked_calls.h); the v and w forms convert their counts to int (refusing what does not\n"
           " * fit, on every rank: tdm_large_agree) and keep their MPI_Aint displacements. Either way the int functions' checks and schedules run,\n"
           " * under the large-count function's name.\n */\n"
           "#include \"api_internal.h\"\n#include \"chunked_calls.h\"\n#include \"large_count.h\"\n"
           "#include \"persistent.h\"\n\n#include <limits.h>\n#include <stdlib.h>\n"]
    for name, cap, plist in COLLECTIVES:
        for fname, extra, form in forms(name, cap, plist):
            fn = f"\"TDM_{fname}\""
            if name in CHUNKED:
                function, lead = CHUNKED[name]
                call = f"{function}({fn}, {lead}, comm, {{req}})"
                if form == "blocking" and name in LINES:
                    cond, largs = LINES[name]
                    body = (f"    int rc;\n    if ({cond}) {{ /* as TDM_{cap}: its small calls on one node take the lines */\n"
                            f"        rc = tdm_lines_{name}({fn}, {largs});\n"
                            f"        if (rc != TDM_LINES_NOT_TAKEN)\n            return rc;\n    }}\n"
                            f"    TDM_Request request;\n    rc = {call.format(req='&request')};\n"
                            f"    if (rc == MPI_SUCCESS)\n        rc = tdm_wait({fn}, &request, MPI_STATUS_IGNORE);\n"
                            f"    return rc;\n")
                elif form == "blocking":
                    body = (f"    TDM_Request request;\n    int rc = {call.format(req='&request')};\n"
                            f"    if (rc == MPI_SUCCESS)\n        rc = tdm_wait({fn}, &request, MPI_STATUS_IGNORE);\n"
                            f"    return rc;\n")
                elif form == "nonblocking":
                    body = f"    return {call.format(req='request')};\n"
                else:
                    body = f"    TDM_PERSISTENT({call.format(req='request')});\n"
                out.append(f"\nint TDM_{fname}({params(plist)}{extra})\n{{\n{body}}}\n")
                continue
            internal = f"tdm_i{name}"
            code, args, frees = conversions(name, plist, fn)
            if form == "blocking":
                start = (f"    TDM_Request request;\n    if (rc == MPI_SUCCESS)\n        rc = {internal}({fn}, {args}, &request);\n"
                         f"    if (rc == MPI_SUCCESS)\n        rc = tdm_wait({fn}, &request, MPI_STATUS_IGNORE);\n")
            elif form == "nonblocking":
                start = f"    if (rc == MPI_SUCCESS)\n        rc = {internal}({fn}, {args}, request);\n"
            else:
                start = (f"    (void)info;\n    if (rc == MPI_SUCCESS) {{\n        tdm_build_persistent(1);\n"
                         f"        rc = {internal}({fn}, {args}, request);\n        tdm_build_persistent(0);\n    }}\n")
            free_code = "".join(f"    free({f});\n" for f in frees)
            out.append(f"\nint TDM_{fname}({params(plist)}{extra})\n{{\n{code}{start}{free_code}    return rc;\n}}\n")
    return "".join(out)


def interposer_source():
    out = [GENERATED, "/*\n * The program's large-count collectives (MPI 4): to Tandem's _c functions; what they refuse (a v or\n"
           " * w form's count beyond INT_MAX, on every rank) goes to MPI, as every call Tandem refuses.\n */\n#include \"interpose.h\"\n\n"
           "#if MPI_VERSION >= 4\n"]
    for name, cap, plist in COLLECTIVES:
        for fname, extra, form in forms(name, cap, plist):
            mpi_extra = extra.replace("TDM_Request", "MPI_Request")
            call_args = names(plist)
            if form == "blocking" and name in LINES:  # run whole, as the int form: it may take the lines
                body = (f"    TDM_IP_BLOCKING_WHOLE(\"MPI_{fname}\", comm, TDM_{fname}({call_args}),\n"
                        f"                          PMPI_{fname}({call_args}));\n")
            elif form == "blocking":
                body = (f"    TDM_IP_BLOCKING(\"MPI_{fname}\", comm, TDM_I{name}_c({call_args}, &treq_),\n"
                        f"                    PMPI_{fname}({call_args}));\n")
            elif form == "nonblocking":
                body = (f"    TDM_IP_NONBLOCKING(\"MPI_{fname}\", comm, TDM_{fname}({call_args}, &treq_),\n"
                        f"                       PMPI_{fname}({call_args}, request));\n")
            else:
                body = (f"    TDM_IP_PERSISTENT(\"MPI_{fname}\", comm, TDM_{fname}({call_args}, info, &treq_),\n"
                        f"                      PMPI_{fname}({call_args}, info, request));\n")
            out.append(f"\nint MPI_{fname}({params(plist)}{mpi_extra})\n{{\n{body}}}\n")
    out.append("#endif\n")
    return "".join(out)


def main():
    top = pathlib.Path(__file__).resolve().parent.parent
    outputs = {"include/tandem_large_count.h": header(), "src/core/api_large_count.c": api_source(),
               "src/interpose/interpose_large_count.c": interposer_source()}
    stale = []
    for path, text in outputs.items():
        if "--check" not in sys.argv:
            (top / path).write_text(text)
        elif (top / path).read_text() != text:
            stale.append(path)
    for path in stale:
        print(f"gen_large_count: {path} is not what scripts/gen_large_count.py generates: run it")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
