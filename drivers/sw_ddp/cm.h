/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connection management: the iw_cm provider calls (listen, connect,
 * accept, reject), run over TCP LLP endpoints (llp_tcp.h), and the
 * hand-over of an established stream to its QP.
 */
#ifndef SW_DDP_CM_H
#define SW_DDP_CM_H

#include <rdma/iw_cm.h>

struct sw_ddp_qp;
struct sw_ddp_llp;

int sw_ddp_cm_init(void);
void sw_ddp_cm_exit(void);

/* ib_device_ops; iw_cm calls them in process context. */
int sw_ddp_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int sw_ddp_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int sw_ddp_iw_reject(struct iw_cm_id *id, const void *pdata, u8 pdata_len);
int sw_ddp_iw_create_listen(struct iw_cm_id *id, int backlog);
int sw_ddp_iw_destroy_listen(struct iw_cm_id *id);

/*
 * The hand-over.  sw_ddp_qp_llp_attach() gives @qp the established stream
 * @llp (for TCP, llp_to_tcp_ep(llp)->conn holds what MPA negotiated) and
 * moves it from IDLE to RTS with the negotiated IRD and ORD; -EINVAL if
 * @qp is not IDLE, has a stream or is being destroyed.  Called with the
 * endpoint's mutex held, before the responder's MPA Reply goes out and
 * before the initiator reports the connection: the data path takes over
 * the socket's receive and write-space callbacks here and, when
 * conn.rtr_send is set, sends the RTR as its very first FPDU.
 * sw_ddp_qp_llp_detach() takes the stream away when it has closed and
 * moves a QP still in RTS, CLOSING or TERMINATE to ERROR.
 */
int sw_ddp_qp_llp_attach(struct sw_ddp_qp *qp, struct sw_ddp_llp *llp,
			 u16 ird, u16 ord);
void sw_ddp_qp_llp_detach(struct sw_ddp_qp *qp);

#endif /* SW_DDP_CM_H */
