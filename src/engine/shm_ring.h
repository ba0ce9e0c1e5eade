/*
 * Rings of cells in a node's shared segment (node.h): how node-aware schedules move data between the
 * processes of a node without MPI. A communicator whose collectives use the segment has, in the part of
 * each of its processes on a node, a ring of TDM_SHM_RING_CELLS cells that only that process writes:
 *   put: the writer takes a free cell, copies the data in (the memory image of count elements of the
 *        type, from the first byte it touches), names the cell after the call and the writer's step in
 *        it, and publishes it for `readers` readers;
 *   get: a reader finds the writer's cell of that call and step, copies the data out, or reduces it into
 *        its own (dst = cell op dst), and counts itself as read; the writer takes the cell again once
 *        every reader has.
 * A full ring makes the writer's next put wait, never overwrite. The first line of a cell holds its flag,
 * its name and the first 32 bytes of the data, so that a small payload travels in one cache line.
 * Memory ordering is C11's: a cell is published with a release store and seen with an acquire load;
 * its count of reads is incremented with release and read by its writer with acquire.
 *
 * Each ring is named by its communicator's id (agreed by all its processes, unique among the
 * communicators alive): a reader finds a writer's ring by that name in the writer's part, on first use.
 */
#ifndef TANDEM_SHM_RING_H
#define TANDEM_SHM_RING_H

#include "../schedule/comm_nodes.h"
#include "../schedule/schedule.h"

#include <stdint.h>

/* Bytes of a ring whose cells carry cell_bytes each (node.c cuts parts into rings). */
size_t tdm_shm_ring_bytes(size_t cell_bytes);
/* Clears a part of `rings` rings (its process, before the others may look). */
void tdm_shm_part_clear(void *part, int rings, size_t cell_bytes);

/* One communicator's rings, as one of its processes sees them. */
typedef struct tdm_shm_comm tdm_shm_comm;

/* This process's ring for a communicator of `size` processes whose world ranks are world[] (kept, not
 * copied: the shadow's): NULL if the part has no free ring (the communicator then runs its node-aware
 * schedules over point-to-point, on every process alike: see shadow_slots.h). */
tdm_shm_comm *tdm_shm_comm_reserve(int size, const int *world);
/* The communicator's id is agreed: the ring carries it, and readers may find it. */
void tdm_shm_comm_publish(tdm_shm_comm *c, uint64_t id);
/* The communicator goes (its calls done here): its ring is free again once every cell of it is read,
 * and no process may still read its lines (shm_lines.h). */
void tdm_shm_comm_release(tdm_shm_comm *c);
/* At TDM_Finalize: forgets the rings still retiring. */
void tdm_shm_rings_finalize(void);

/* For shm_lines.c: the communicator's lines as this process sees them, its size, and the lines of its
 * rank r's ring (NULL while r's process has not published it). */
struct tdm_shm_lines_state *tdm_shm_comm_lines(tdm_shm_comm *c);
int tdm_shm_comm_size(const tdm_shm_comm *c);
void *tdm_shm_comm_lines_of(tdm_shm_comm *c, int r);

/*
 * Many calls in flight on one communicator share its rings. A call holds at most tdm_schedule.shm_cells
 * cells of a ring at once (a put waits while that many of its cells are unread), and the calls are
 * admitted to the ring in the order they started (their tickets, from the shadow's count), each once
 * every call started before it was and the cells of the calls admitted and not finished fit in a ring.
 * So a put waits only for its own call's cells (or for cells of calls finished here, whose readers need
 * nothing more): a full ring waits, never deadlocks.
 */
typedef struct tdm_shm_holds {
    void *cells[TDM_SHM_CALL_CELLS]; /* the call's cells not known to be read */
    uint64_t until[TDM_SHM_CALL_CELLS]; /* each cell's count of reads once the call's put is read */
    int n;
} tdm_shm_holds;
int tdm_shm_admit(tdm_shm_comm *c, uint64_t ticket, int cells);
/* The call ends here. Cells of it that its readers have not read yet (holds: a writer's last puts, as a
 * reduce's non-root makes them) stay reserved until they are: a call admitted later must find the
 * cells it reserves free, while those readers may wait for their turn behind it. */
void tdm_shm_leave(tdm_shm_comm *c, int cells, tdm_shm_holds *holds);

/* The engine's two actions (TDM_ACT_SHM_PUT, TDM_ACT_SHM_GET) of call `call`: 1 once done, 0 while
 * they cannot be yet (no free cell; the writer's cell not there yet). A failure of MPI's local calls
 * (MPI_Pack for a type that is not dense, MPI_Reduce_local) is done, with its code in *error. comm is
 * the one MPI_Pack is given. */
int tdm_shm_put(tdm_shm_comm *c, uint64_t call, const tdm_action *a, MPI_Comm comm, tdm_shm_holds *holds, int most,
                int *error);
int tdm_shm_get(tdm_shm_comm *c, uint64_t call, const tdm_action *a, MPI_Comm comm, int *error);

#endif
