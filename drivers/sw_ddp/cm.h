/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connection management: the iw_cm provider calls (listen, connect,
 * accept, reject), run over TCP LLP endpoints (llp_tcp.h), and the
 * hand-over of an established stream to its QP.
 */
#ifndef SW_DDP_CM_H
#define SW_DDP_CM_H

#include <rdma/iw_cm.h>

int sw_ddp_cm_init(void);
void sw_ddp_cm_exit(void);

/* ib_device_ops; iw_cm calls them in process context. */
int sw_ddp_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int sw_ddp_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int sw_ddp_iw_reject(struct iw_cm_id *id, const void *pdata, u8 pdata_len);
int sw_ddp_iw_create_listen(struct iw_cm_id *id, int backlog);
int sw_ddp_iw_destroy_listen(struct iw_cm_id *id);

/* cm_sctp.c: the same calls on a sw_ddp_sctp device (RFC 5043) */
int sw_ddp_sctp_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int sw_ddp_sctp_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int sw_ddp_sctp_iw_reject(struct iw_cm_id *id, const void *pdata,
			  u8 pdata_len);
int sw_ddp_sctp_iw_create_listen(struct iw_cm_id *id, int backlog);
int sw_ddp_sctp_iw_destroy_listen(struct iw_cm_id *id);

/* cm.c, for both: an event to iw_cm, which may refuse a CONNECT_REPLY */
int sw_ddp_cm_upcall(struct iw_cm_id *id, struct iw_cm_event *ev);

/*
 * The request a CONNECT_REQUEST handed up as provider_data, taken by the
 * ULP's answer.  iw_cm passes on an accept or reject as long as it has
 * not processed the ESTABLISHED that follows a successful accept
 * (iw_cm_reject() checks only that a request came; destroying the cm_id
 * rejects it), so a second answer can follow the first.  Only the first
 * finds the request; a later one gets NULL, and the connection, which may
 * be gone by then, is not touched.
 */
static inline void *sw_ddp_cm_take_request(struct iw_cm_id *id)
{
	return xchg(&id->provider_data, NULL);
}

#if IS_ENABLED(CONFIG_KUNIT)
struct sw_ddp_mpa_cfg;

/* module parameter peer_to_peer, and what it makes of a connect */
extern bool sw_ddp_cm_peer_to_peer;
void sw_ddp_cm_mpa_cfg(struct sw_ddp_mpa_cfg *cfg,
		       const struct iw_cm_conn_param *p, bool initiator);
#endif

#endif /* SW_DDP_CM_H */
