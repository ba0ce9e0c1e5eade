/* The machine's cost parameters (alpha, beta, gamma and the shared latency): plain data, held in the
 * global state from TDM_Init (TANDEM_LOGGP or the built-in defaults), read by selection and the models. */
#ifndef TANDEM_LOGGP_PARAMS_H
#define TANDEM_LOGGP_PARAMS_H

typedef struct tdm_loggp {
    double alpha, beta, gamma; /* seconds per message, per element on a link, per element reduced */
    /* The part of alpha that messages started at once wait out together (the network's latency, a
     * rendezvous handshake), 0 to alpha: k messages of one round start up in latency + k (alpha -
     * latency). 0 (the default): every message pays all of alpha, as the closed forms of the papers do. */
    double latency;
    /* Inside a node, through Tandem's shared segment (0: the built-in default): a step's hand-off from
     * one process to another (a flag's cache line crossing cores, seconds), and seconds per byte copied
     * into or out of a cell. */
    double shm_flag, shm_beta;
} tdm_loggp;

/* What a node's shared-memory step costs where the parameters do not say (tdm_loggp.shm_*). */
#define TDM_LOGGP_DEFAULT_SHM_FLAG 2e-7
#define TDM_LOGGP_DEFAULT_SHM_BETA 1e-10
static inline double tdm_loggp_shm_flag(const tdm_loggp *m) { return m->shm_flag > 0 ? m->shm_flag : TDM_LOGGP_DEFAULT_SHM_FLAG; }
static inline double tdm_loggp_shm_beta(const tdm_loggp *m) { return m->shm_beta > 0 ? m->shm_beta : TDM_LOGGP_DEFAULT_SHM_BETA; }

#endif
