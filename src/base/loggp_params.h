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
} tdm_loggp;

#endif
