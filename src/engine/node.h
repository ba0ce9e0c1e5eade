/*
 * The node: the processes that share memory with this one (MPI_COMM_TYPE_SHARED), cut into emulated
 * nodes of TANDEM_NODE_SIZE processes where a test or a study asks, and the node's shared segment
 * (MPI_Win_allocate_shared over the node's processes, TANDEM_SHM_BYTES in all). Each process's part of
 * the segment holds rings of cells (shm_ring.h): one ring for each communicator of its whose
 * collectives run node-aware, so that one segment serves every communicator and MPI gives Tandem one
 * window per process, not one per communicator.
 *
 * Made once, at TDM_Init, on every process of MPI_COMM_WORLD (dedicated collective processes too).
 * Where the segment cannot be made (TANDEM_SHM=off, too few bytes, MPI refuses the window), the nodes
 * are still known and node-aware algorithms move their intra-node data over point-to-point;
 * TANDEM_VERBOSE says why once per node. SimGrid's simulated ranks share one address space: they have
 * a segment too, whose costs are charged as simulated time (smpi_support.h), but no mailboxes.
 */
#ifndef TANDEM_NODE_H
#define TANDEM_NODE_H

#include "../schedule/comm_nodes.h"

#include <mpi.h>
#include <stddef.h>

/* At TDM_Init, on every process of MPI_COMM_WORLD: reads TANDEM_SHM, TANDEM_SHM_BYTES, TANDEM_NODE_SIZE
 * and TANDEM_SHM_CELL_BYTES (MPI_ERR_ARG and a message naming the setting if malformed), finds the
 * nodes and makes the segment; with mailboxes (dcp progress), each part holds a mailbox after its rings
 * (mailbox.h). */
int tdm_node_init(const char *fn, int mailboxes);
/* At TDM_Finalize, on every process of MPI_COMM_WORLD. */
void tdm_node_finalize(void);

/* The node of a process of MPI_COMM_WORLD: the lowest world rank on it (emulated nodes included). */
int tdm_node_of(int world_rank);
/* Processes on this process's node (emulated), and on the machine's node it is part of. */
int tdm_node_size(void);
int tdm_node_machine_size(void);

/* Whether selection picks node-aware algorithms on its own: the same on every process (TANDEM_SHM is not
 * off, and the processes are not SimGrid's, where the intra-node steps would be messages). A node that
 * could not make its segment still runs them, over point-to-point. */
int tdm_node_shm_wanted(void);
/* The cell payload of the rings: the most one intra-node step carries (the same on every process,
 * segment or not, so that all build the same schedules: it follows from the settings and the largest
 * node). */
size_t tdm_node_cell_bytes(void);
/* Whether this node has its segment. */
int tdm_node_has_segment(void);
/* The part of the segment of a process on this node (NULL if it is on another node, or there is no
 * segment), and the rings each part holds. */
void *tdm_node_part(int world_rank);
int tdm_node_rings_per_part(void);
/* The mailbox of a process on this node (NULL if it is on another node, or the parts have none). */
void *tdm_node_mailbox(int world_rank);

/* The world ranks of comm's `size` ranks (malloc'ed), or NULL if out of memory or comm holds a process
 * of another world (spawned, connected: every rank of comm sees one, since each sees the processes
 * outside its own world). */
int *tdm_world_ranks(MPI_Comm comm, int size);
/* The layout of a communicator of `size` ranks whose world ranks are world[] (one allocation: free()
 * frees it); NULL if out of memory. */
tdm_comm_nodes *tdm_comm_nodes_make(int size, const int *world);

#endif
