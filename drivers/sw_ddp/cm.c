// SPDX-License-Identifier: GPL-2.0
/*
 * Connection management for iWARP over TCP: the iw_cm provider calls.
 *
 * iw_cm's contract (drivers/infiniband/core/iwcm.c): a listener's cm_id
 * gets IW_CM_EVENT_CONNECT_REQUEST with our endpoint as provider_data,
 * which becomes the new cm_id's provider_data and comes back in
 * iw_accept() or iw_reject(); the first of them takes it (a second is
 * refused, see sw_ddp_cm_take_request()).  After a successful accept the
 * passive side gets ESTABLISHED (in RFC 6581 peer-to-peer mode once the
 * initiator's RTR has arrived), the active side a CONNECT_REPLY (status
 * 0: established; -ECONNREFUSED: rejected; -ETIMEDOUT; -ECONNRESET; for a
 * Reply RFC 6581 makes it terminate, -ENOMEM or -EPROTO; -EMSGSIZE for
 * more private data than iw_cm carries).  An
 * established connection may see DISCONNECT (the peer closed) and ends
 * with CLOSE, after which we drop our cm_id reference.  A failed
 * CONNECT_REPLY is the last event too.  Every event is given once, from
 * the endpoint's work or its owner's call, under the endpoint's mutex.
 *
 * A connection (struct sw_ddp_cep) holds: a reference on its cm_id
 * (add_ref/rem_ref), one on its QP (iw_add_ref/iw_rem_ref) and one on its
 * TCP endpoint.
 */
#include <linux/module.h>
#include <net/net_namespace.h>
#include <kunit/visibility.h>

#include "cm.h"
#include "llp_tcp.h"
#include "qp.h"
#include "sctp_llp.h"
#include "stream.h"
#include "sw_ddp.h"

/*
 * What we ask for and allow.  As siw does by default: MPA revision 2, no
 * CRC unless the peer asks, no markers unless the peer asks, no
 * peer-to-peer mode of our own unless peer_to_peer is set.  A peer's
 * peer-to-peer request is always accepted (RFC 6581 §9.2); the data path
 * sends and takes the RTR (rdmap_rtr.c).
 */
static const bool sw_ddp_cm_crc;
/* RTR types we send and take: all three */
#define SW_DDP_CM_RTR	(SW_DDP_RTR_WRITE | SW_DDP_RTR_READ | SW_DDP_RTR_SEND)

VISIBLE_IF_KUNIT bool sw_ddp_cm_peer_to_peer;
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_cm_peer_to_peer);
module_param_named(peer_to_peer, sw_ddp_cm_peer_to_peer, bool, 0644);
MODULE_PARM_DESC(peer_to_peer,
		 "RFC 6581 peer-to-peer mode (an RTR opens the connection) for connections we initiate (default: off)");

struct sw_ddp_cep {
	struct iw_cm_id *cm_id;		/* add_ref'd, once known */
	struct sw_ddp_qp *qp;		/* iw_add_ref'd, once known */
	struct sw_ddp_tcp_ep *ep;
	bool holds_ep;			/* a reference on ep */
	bool established;		/* ESTABLISHED or CONNECT_REPLY(0) */
};

/* An SCTP device's connections are cm_sctp.c's. */
static bool cm_is_sctp(struct ib_device *ibdev)
{
	return to_sdev(ibdev)->llp == SW_DDP_LLP_SCTP;
}

/*
 * The caller's QP by number, counted, by iw_get_qp's rule (qp.c); iw_cm
 * holds its own reference too.
 */
static struct sw_ddp_qp *cm_qp_get(struct ib_device *ibdev, u32 qpn)
{
	return sw_ddp_qp_get_named(to_sdev(ibdev), qpn);
}

static void cm_qp_put(struct sw_ddp_qp *qp)
{
	sw_ddp_qp_put(qp);
}

/* The device's network namespace, counted; NULL if it is going away. */
static struct net *cm_net(struct ib_device *ibdev)
{
	struct net *net;

	rcu_read_lock();
	net = maybe_get_net(dev_net(to_sdev(ibdev)->netdev));
	rcu_read_unlock();
	return net;
}

static void cm_addrs(struct sw_ddp_tcp_ep *ep, struct iw_cm_event *ev)
{
	if (!ep->sock)
		return;
	kernel_getsockname(ep->sock, (struct sockaddr *)&ev->local_addr);
	kernel_getpeername(ep->sock, (struct sockaddr *)&ev->remote_addr);
}

/**
 * sw_ddp_cm_upcall() - hand iw_cm an event for its cm_id
 * @id: the cm_id
 * @ev: the event
 *
 * iw_cm copies a CONNECT_REPLY's private data with GFP_ATOMIC, and
 * refuses the event if it cannot: a reply it never had would leave its
 * cm_id waiting for good.  A failure's reply goes again without the data,
 * which iw_cm always takes; a success's cannot go without it.  No other
 * event can be refused (iw_cm keeps an entry for each).
 *
 * Return: 0, or why iw_cm refused a success: the caller fails the
 * connection instead, and says so with a failure's reply.
 */
int sw_ddp_cm_upcall(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	int err = id->event_handler(id, ev);

	if (err && ev->status && ev->private_data_len) {
		ev->private_data = NULL;
		ev->private_data_len = 0;
		err = id->event_handler(id, ev);
	}
	if (err)
		pr_warn_ratelimited("sw_ddp: iw_cm event %d lost\n", ev->event);
	return err;
}

/* Return: as sw_ddp_cm_upcall(). */
static int cm_event(struct sw_ddp_cep *cep, enum iw_cm_event_type type,
		    int status)
{
	struct sw_ddp_tcp_ep *ep = cep->ep;
	struct iw_cm_event ev = { .event = type, .status = status };

	if (type == IW_CM_EVENT_CONNECT_REPLY ||
	    type == IW_CM_EVENT_ESTABLISHED) {
		ev.ird = min_t(u16, ep->conn.ird, U8_MAX);
		ev.ord = min_t(u16, ep->conn.ord, U8_MAX);
	}
	/*
	 * A success's or a rejection's private data; a u8 length: what it
	 * cannot carry whole is not given (see below).
	 */
	if (type == IW_CM_EVENT_CONNECT_REPLY) {
		cm_addrs(ep, &ev);
		if ((!status || status == -ECONNREFUSED) &&
		    ep->peer.pdata_len <= U8_MAX) {
			ev.private_data = (void *)ep->peer.pdata;
			ev.private_data_len = ep->peer.pdata_len;
		}
	}
	return sw_ddp_cm_upcall(cep->cm_id, &ev);
}

/*
 * The connection is over for iw_cm: drop what it held but the endpoint,
 * ep->mutex held.  Return: whether the caller must put the endpoint.
 */
static bool cm_cep_end(struct sw_ddp_cep *cep)
{
	bool holds_ep = cep->holds_ep;

	if (cep->cm_id)
		cep->cm_id->rem_ref(cep->cm_id);
	if (cep->qp)
		cm_qp_put(cep->qp);
	cep->ep->owner = NULL;
	kfree(cep);
	return holds_ep;
}

/* ops->request, on a listener (owner: its cm_id) */
static int cm_request(struct sw_ddp_tcp_ep *l, struct sw_ddp_tcp_ep *child)
{
	struct iw_cm_id *lid = l->owner;
	const struct mpa_rr_info *req = &child->peer;
	struct iw_cm_event ev = {
		.event = IW_CM_EVENT_CONNECT_REQUEST,
		.provider_data = child,
		.private_data = (void *)req->pdata,
		.private_data_len = req->pdata_len,
		/* MPA v1 says nothing of IRD/ORD: offer the most */
		.ird = SW_DDP_MAX_IRD,
		.ord = SW_DDP_MAX_ORD,
	};
	struct sw_ddp_cep *cep;
	int err;

	/*
	 * iw_cm carries at most 255 octets of private data (a u8 length),
	 * RFC 5044 up to 512: a Request whose ULP could not see all of it
	 * is not handed up, and the connection is reset.  As over SCTP.
	 */
	if (req->pdata_len > U8_MAX)
		return -EMSGSIZE;
	/*
	 * RFC 6581 §9.1: the peer's IRD and ORD, within what we can do.
	 * rdma_cm hands them up as the ULP's initiator depth (our ORD) and
	 * responder resources (our IRD), which a ULP may pass back to
	 * accept as they are.  0x3FFF, "as many as you like", gets ours.
	 */
	if (mpa_rr_enhanced(req)) {
		ev.ird = min_t(u16, req->ird & MPA_V2_IRD_ORD_MASK,
			       SW_DDP_MAX_ORD);
		ev.ord = min_t(u16, req->ord & MPA_V2_IRD_ORD_MASK,
			       SW_DDP_MAX_IRD);
	}
	cep = kzalloc(sizeof(*cep), GFP_KERNEL);
	if (!cep)
		return -ENOMEM;
	cm_addrs(child, &ev);
	sw_ddp_tcp_get(child);
	cep->ep = child;
	cep->holds_ep = true;
	child->owner = cep;
	err = lid->event_handler(lid, &ev);
	if (err) {
		child->owner = NULL;
		sw_ddp_tcp_put(child);	/* not the last: the run has one */
		kfree(cep);
	}
	return err;
}

/* ops->connected, active side */
static int cm_connected(struct sw_ddp_tcp_ep *ep, int status)
{
	struct sw_ddp_cep *cep = ep->owner;
	int err = status;

	/* as for a request (above): the ULP could not see it all */
	if (!err && ep->peer.pdata_len > U8_MAX)
		err = -EMSGSIZE;
	if (!err)
		err = sw_ddp_qp_llp_attach(cep->qp, &ep->llp, ep->conn.ird,
					   ep->conn.ord);
	cep->ep = ep;
	if (!err) {
		err = cm_event(cep, IW_CM_EVENT_CONNECT_REPLY, 0);
		if (!err) {
			cep->established = true;
			return 0;
		}
		/* a reset, with no FIN first that the peer takes for a close */
		sw_ddp_tcp_data_stop(ep, true);
		sw_ddp_qp_llp_detach(cep->qp);
	}
	cm_event(cep, IW_CM_EVENT_CONNECT_REPLY, err);
	if (cm_cep_end(cep))
		sw_ddp_tcp_put(ep);	/* not the last: the run has one */
	return status ? 0 : err;
}

/* ops->rtr, passive side in peer-to-peer mode */
static void cm_rtr(struct sw_ddp_tcp_ep *ep)
{
	struct sw_ddp_cep *cep = ep->owner;

	if (!cep || cep->established)
		return;
	cep->established = true;
	cm_event(cep, IW_CM_EVENT_ESTABLISHED, 0);
}

/* ops->closed: the stream of an accepted or connected QP is gone */
static void cm_closed(struct sw_ddp_tcp_ep *ep, enum sw_ddp_tcp_close why)
{
	struct sw_ddp_cep *cep = ep->owner;
	bool clean = why == SW_DDP_TCP_PEER_FIN || why == SW_DDP_TCP_LOCAL;

	if (!cep)
		return;
	sw_ddp_qp_llp_detach(cep->qp);
	if (!cep->established)	/* iw_cm waits for it: never leave it out */
		cm_event(cep, IW_CM_EVENT_ESTABLISHED,
			 why == SW_DDP_TCP_RTR_TIMEOUT ? -ETIMEDOUT :
							 -ECONNRESET);
	else if (why != SW_DDP_TCP_LOCAL)
		cm_event(cep, IW_CM_EVENT_DISCONNECT, clean ? 0 : -ECONNRESET);
	cm_event(cep, IW_CM_EVENT_CLOSE, clean ? 0 : -ECONNRESET);
	if (cm_cep_end(cep))
		sw_ddp_tcp_put(ep);	/* not the last: the run has one */
}

static const struct sw_ddp_tcp_ep_ops cm_tcp_ops = {
	.request = cm_request,
	.connected = cm_connected,
	.rtr = cm_rtr,
	.closed = cm_closed,
};

static unsigned long cm_timeout(void)
{
	return msecs_to_jiffies(SW_DDP_MPA_TIMEOUT_MS);
}

static int cm_check_param(const struct iw_cm_conn_param *p)
{
	/* RFC 5044: 512 octets, RFC 6581 IRD/ORD included */
	if (p->private_data_len >
	    MPA_PD_MAX - sizeof(struct mpa_v2_conn_data) ||
	    (p->private_data_len && !p->private_data))
		return -EINVAL;
	if (p->ird > SW_DDP_MAX_IRD || p->ord > SW_DDP_MAX_ORD)
		return -EINVAL;
	return 0;
}

/* What we ask for (initiator) or accept with, from the ULP's parameters. */
VISIBLE_IF_KUNIT void sw_ddp_cm_mpa_cfg(struct sw_ddp_mpa_cfg *cfg,
					const struct iw_cm_conn_param *p,
					bool initiator)
{
	*cfg = (struct sw_ddp_mpa_cfg) {
		.rev = MPA_REV_2,
		.crc = sw_ddp_cm_crc,
		.p2p = initiator && READ_ONCE(sw_ddp_cm_peer_to_peer),
		.rtr = SW_DDP_CM_RTR,
		.ird = p->ird,
		.ord = p->ord,
		.pdata = p->private_data,
		.pdata_len = p->private_data_len,
	};
	/* a Read RTR needs an ORD of one */
	if (initiator && cfg->p2p && !cfg->ord)
		cfg->ord = 1;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_cm_mpa_cfg);

/* Keep @ep for @cep unless the connection ended before we got here. */
static void cm_adopt_ep(struct sw_ddp_cep *cep, struct sw_ddp_tcp_ep *ep)
{
	bool alive;

	sw_ddp_tcp_lock(ep);
	alive = ep->owner == cep;
	if (alive) {
		cep->ep = ep;
		cep->holds_ep = true;
	}
	sw_ddp_tcp_unlock(ep);
	if (!alive)
		sw_ddp_tcp_put(ep);
}

int sw_ddp_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct sw_ddp_mpa_cfg offer;
	struct sw_ddp_tcp_ep *ep;
	struct sw_ddp_cep *cep;
	struct net *net;
	int err;

	if (cm_is_sctp(id->device))
		return sw_ddp_sctp_iw_connect(id, param);
	err = cm_check_param(param);
	if (err)
		return err;
	cep = kzalloc(sizeof(*cep), GFP_KERNEL);
	if (!cep)
		return -ENOMEM;
	cep->qp = cm_qp_get(id->device, param->qpn);
	if (!cep->qp) {
		err = -EINVAL;
		goto err_cep;
	}
	if (!sw_ddp_qp_llp_ready(cep->qp)) {
		err = -EINVAL;
		goto err_qp;
	}
	net = cm_net(id->device);
	if (!net) {
		err = -ENODEV;
		goto err_qp;
	}
	cep->cm_id = id;
	id->add_ref(id);
	sw_ddp_cm_mpa_cfg(&offer, param, true);
	/* iw_cm's m_remote_addr is the port mapper's view (or a copy) */
	err = sw_ddp_tcp_connect(net, &id->local_addr, &id->m_remote_addr,
				 id->afonly, &offer, cm_timeout(), &cm_tcp_ops,
				 cep, &ep);
	put_net(net);
	if (err)
		goto err_ref;
	cm_adopt_ep(cep, ep);
	return 0;

err_ref:
	id->rem_ref(id);
err_qp:
	cm_qp_put(cep->qp);
err_cep:
	kfree(cep);
	return err;
}

/* Passive side, ep->mutex held: send the Reply, hand the stream over. */
static int cm_accept_locked(struct sw_ddp_cep *cep, struct iw_cm_id *id,
			    struct iw_cm_conn_param *param)
{
	struct sw_ddp_tcp_ep *ep = cep->ep;
	struct sw_ddp_mpa_cfg local;
	int err;

	/* nothing goes to the peer for a QP that could not take the stream */
	if (!sw_ddp_qp_llp_ready(cep->qp))
		return -EINVAL;
	sw_ddp_cm_mpa_cfg(&local, param, false);
	err = sw_ddp_tcp_accept(ep, &local);
	if (err)
		return err;
	/*
	 * RFC 5044 §7.1: the Reply comes before any FPDU of ours.  The QP's
	 * stream may send at once (what was posted while connecting, or an
	 * answer to an initiator's early FPDU), so it starts only after;
	 * FPDUs that arrive meanwhile wait in the socket.
	 */
	err = sw_ddp_tcp_send_reply(ep);
	if (err)
		return err;
	err = sw_ddp_qp_llp_attach(cep->qp, &ep->llp, ep->conn.ird,
				   ep->conn.ord);
	if (err) {
		sw_ddp_tcp_close(ep, true);
		return err;
	}
	cep->cm_id = id;
	id->add_ref(id);
	if (!ep->conn.rtr_wait) {
		cep->established = true;
		cm_event(cep, IW_CM_EVENT_ESTABLISHED, 0);
	}
	return 0;
}

int sw_ddp_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct sw_ddp_tcp_ep *ep;
	struct sw_ddp_cep *cep;
	int err;

	if (cm_is_sctp(id->device))
		return sw_ddp_sctp_iw_accept(id, param);
	ep = sw_ddp_cm_take_request(id);
	if (!ep)
		return -EINVAL;		/* answered already */
	sw_ddp_tcp_lock(ep);
	cep = ep->owner;
	err = cm_check_param(param);
	if (!err) {
		cep->qp = cm_qp_get(id->device, param->qpn);
		err = cep->qp ? cm_accept_locked(cep, id, param) : -EINVAL;
	}
	if (err) {
		sw_ddp_tcp_close(ep, true);
		cm_cep_end(cep);	/* no event follows a failed accept */
	}
	sw_ddp_tcp_unlock(ep);
	if (err)
		sw_ddp_tcp_put(ep);	/* the connection's, from cm_request */
	return err;
}

int sw_ddp_iw_reject(struct iw_cm_id *id, const void *pdata, u8 pdata_len)
{
	struct sw_ddp_tcp_ep *ep;
	int err;

	if (cm_is_sctp(id->device))
		return sw_ddp_sctp_iw_reject(id, pdata, pdata_len);
	ep = sw_ddp_cm_take_request(id);
	if (!ep)
		return -EINVAL;		/* answered already */
	sw_ddp_tcp_lock(ep);
	err = sw_ddp_tcp_reject(ep, pdata, pdata_len);
	cm_cep_end(ep->owner);
	sw_ddp_tcp_unlock(ep);
	sw_ddp_tcp_put(ep);
	return err == -ECONNRESET ? 0 : err;
}

int sw_ddp_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct net_device *netdev = to_sdev(id->device)->netdev;
	struct sw_ddp_tcp_ep *ep;
	struct net *net;
	int err;

	if (cm_is_sctp(id->device))
		return sw_ddp_sctp_iw_create_listen(id, backlog);
	net = cm_net(id->device);
	if (!net)
		return -ENODEV;
	/* a wildcard listens on this device's interface only */
	err = sw_ddp_tcp_listen(net, &id->local_addr, backlog,
				netdev->ifindex, id->afonly, cm_timeout(),
				&cm_tcp_ops, id, &ep);
	put_net(net);
	if (err)
		return err;
	id->add_ref(id);
	id->provider_data = ep;
	return 0;
}

int sw_ddp_iw_destroy_listen(struct iw_cm_id *id)
{
	struct sw_ddp_tcp_ep *ep = id->provider_data;

	if (cm_is_sctp(id->device))
		return sw_ddp_sctp_iw_destroy_listen(id);
	if (!ep)
		return 0;
	/* after this no ops->request can run for @id */
	sw_ddp_tcp_lock(ep);
	sw_ddp_tcp_close(ep, false);
	sw_ddp_tcp_unlock(ep);
	id->provider_data = NULL;
	sw_ddp_tcp_put(ep);
	id->rem_ref(id);
	return 0;
}

int sw_ddp_cm_init(void)
{
	int err = sw_ddp_tcp_init();

	if (err)
		return err;
	err = sw_ddp_sctp_init();
	if (err)
		sw_ddp_tcp_exit();
	return err;
}

void sw_ddp_cm_exit(void)
{
	sw_ddp_sctp_exit();
	sw_ddp_tcp_exit();
}
