// SPDX-License-Identifier: GPL-2.0
/*
 * Connection management for iWARP over SCTP (RFC 5043): the iw_cm
 * provider calls of a sw_ddp_sctp device, over DDP Stream Sessions
 * (sctp_llp.h).  cm.c dispatches to them.
 *
 * The iw_cm contract is the one cm.c keeps for TCP: CONNECT_REQUEST with
 * the session as provider_data, taken by the first accept or reject;
 * ESTABLISHED after a successful accept; CONNECT_REPLY once on the active
 * side (0 on the Accept, -ECONNREFUSED with the Reject's private data,
 * -ECONNRESET on a Terminate or the association's loss, -ETIMEDOUT);
 * DISCONNECT when the peer ends the session, and CLOSE last, after which
 * our cm_id reference goes.  Events come from the association's work or
 * the owner's call, under the association's mutex.
 *
 * Mapping: connect is an Initiate on a new or shared association (its
 * private data is the ULP's), accept an Accept, reject a Reject, and a
 * disconnect the QP's move out of RTS, which ends the session with a
 * Terminate (after any RDMAP Terminate the engine sent).  RFC 5043 has
 * no IRD/ORD exchange: each side uses what its verbs consumer asked for
 * (Documentation/sctp.rst).
 *
 * A connection (struct sctp_cep) holds a reference on its cm_id, on its
 * QP and on its session.
 */
#include <linux/module.h>
#include <net/net_namespace.h>

#include "cm.h"
#include "qp.h"
#include "sctp_llp.h"
#include "sw_ddp.h"

struct sctp_cep {
	struct iw_cm_id *cm_id;		/* add_ref'd */
	struct sw_ddp_qp *qp;		/* counted */
	struct sw_ddp_sctp_session *sess;	/* counted, once adopted */
	u8 ird, ord;			/* what the consumer asked for */
	bool established;		/* ESTABLISHED or CONNECT_REPLY(0) */
};

/* The device's network namespace, counted; NULL if it is going away. */
static struct net *sctp_cm_net(struct ib_device *ibdev)
{
	struct net *net;

	rcu_read_lock();
	net = maybe_get_net(dev_net(to_sdev(ibdev)->netdev));
	rcu_read_unlock();
	return net;
}

/* Return: as sw_ddp_cm_upcall(). */
static int sctp_cm_event(struct sctp_cep *cep, struct sw_ddp_sctp_session *s,
			 enum iw_cm_event_type type, int status)
{
	struct sw_ddp_sctp_assoc *a = s->assoc;
	struct iw_cm_event ev = { .event = type, .status = status };

	if (type == IW_CM_EVENT_CONNECT_REPLY ||
	    type == IW_CM_EVENT_ESTABLISHED) {
		ev.ird = cep->ird;
		ev.ord = cep->ord;
	}
	if (type == IW_CM_EVENT_CONNECT_REPLY) {
		ev.local_addr = a->laddr.ss_family ? a->laddr :
						     cep->cm_id->local_addr;
		ev.remote_addr = a->raddr.ss_family ? a->raddr :
						      cep->cm_id->remote_addr;
		/* a u8 length: what it cannot carry whole is not given */
		if ((!status || status == -ECONNREFUSED) &&
		    s->pdata_len <= U8_MAX) {
			ev.private_data = s->pdata;
			ev.private_data_len = s->pdata_len;
		}
	}
	return sw_ddp_cm_upcall(cep->cm_id, &ev);
}

/* The connection is over for iw_cm: drop what it held. */
static void sctp_cep_end(struct sctp_cep *cep)
{
	if (cep->cm_id)
		cep->cm_id->rem_ref(cep->cm_id);
	if (cep->qp)
		sw_ddp_qp_put(cep->qp);
	if (cep->sess)
		sw_ddp_sctp_put(cep->sess);	/* not the last: its stream's */
	kfree(cep);
}

/* ops->request, on a listener (owner: its cm_id) */
static int sctp_cm_request(struct sw_ddp_sctp_listener *l,
			   struct sw_ddp_sctp_session *s)
{
	struct iw_cm_id *lid = l->owner;
	struct iw_cm_event ev = {
		.event = IW_CM_EVENT_CONNECT_REQUEST,
		.provider_data = s,
		.private_data = s->pdata,
		.private_data_len = s->pdata_len,
		/* nothing on the wire says: offer the most, as MPA v1 does */
		.ird = SW_DDP_MAX_IRD,
		.ord = SW_DDP_MAX_ORD,
		.local_addr = s->assoc->laddr,
		.remote_addr = s->assoc->raddr,
	};
	int err;

	/*
	 * iw_cm carries at most 255 octets of private data (a u8 length);
	 * §5.2.3 allows 512 and says what is reported must be available to
	 * the ULP whole: an Initiate with more is not forwarded, so it is
	 * answered with a Terminate.
	 */
	if (s->pdata_len > U8_MAX)
		return -EMSGSIZE;
	sw_ddp_sctp_get(s);	/* iw_cm's, until accept or reject */
	err = lid->event_handler(lid, &ev);
	if (err)
		sw_ddp_sctp_put(s);	/* not the last: its stream's */
	return err;
}

/* ops->connected, active side */
static int sctp_cm_connected(struct sw_ddp_sctp_session *s, int status)
{
	struct sctp_cep *cep = s->owner;
	int err = status;

	/* as for a request (above): the ULP could not see it all */
	if (!err && s->pdata_len > U8_MAX)
		err = -EMSGSIZE;
	if (!err)
		err = sw_ddp_qp_llp_attach(cep->qp, &s->llp, cep->ird,
					   cep->ord);
	if (!err) {
		err = sctp_cm_event(cep, s, IW_CM_EVENT_CONNECT_REPLY, 0);
		if (!err) {
			cep->established = true;
			return 0;
		}
		sw_ddp_qp_llp_detach(cep->qp);
	}
	sctp_cm_event(cep, s, IW_CM_EVENT_CONNECT_REPLY, err);
	sctp_cep_end(cep);
	return status ? 0 : err;
}

/* ops->closed: the session of an accepted or connected QP ended */
static void sctp_cm_closed(struct sw_ddp_sctp_session *s,
			   enum sw_ddp_sctp_close why)
{
	struct sctp_cep *cep = s->owner;
	bool clean = why == SW_DDP_SCTP_PEER_TERM || why == SW_DDP_SCTP_LOCAL;

	sw_ddp_qp_llp_detach(cep->qp);
	if (!cep->established)	/* iw_cm waits for it: never leave it out */
		sctp_cm_event(cep, s, IW_CM_EVENT_ESTABLISHED, -ECONNRESET);
	else if (why != SW_DDP_SCTP_LOCAL)
		sctp_cm_event(cep, s, IW_CM_EVENT_DISCONNECT,
			      clean ? 0 : -ECONNRESET);
	sctp_cm_event(cep, s, IW_CM_EVENT_CLOSE, clean ? 0 : -ECONNRESET);
	sctp_cep_end(cep);
}

static const struct sw_ddp_sctp_ops sctp_cm_ops = {
	.request = sctp_cm_request,
	.connected = sctp_cm_connected,
	.closed = sctp_cm_closed,
};

static int sctp_cm_check_param(const struct iw_cm_conn_param *p)
{
	if (p->private_data_len > SCTP_DDP_PDATA_MAX ||
	    (p->private_data_len && !p->private_data))
		return -EINVAL;
	if (p->ird > SW_DDP_MAX_IRD || p->ord > SW_DDP_MAX_ORD)
		return -EINVAL;
	return 0;
}

/* Keep @s for @cep unless the connection ended before we got here. */
static void sctp_cm_adopt(struct sctp_cep *cep, struct sw_ddp_sctp_session *s)
{
	bool alive;

	sw_ddp_sctp_lock(s);
	alive = s->owner == cep;
	if (alive)
		cep->sess = s;
	sw_ddp_sctp_unlock(s);
	if (!alive)
		sw_ddp_sctp_put(s);
}

int sw_ddp_sctp_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct sw_ddp_sctp_session *s;
	struct sctp_cep *cep;
	struct net *net;
	int err;

	err = sctp_cm_check_param(param);
	if (err)
		return err;
	cep = kzalloc(sizeof(*cep), GFP_KERNEL);
	if (!cep)
		return -ENOMEM;
	cep->ird = param->ird;
	cep->ord = param->ord;
	cep->qp = sw_ddp_qp_get_named(to_sdev(id->device), param->qpn);
	if (!cep->qp) {
		err = -EINVAL;
		goto err_cep;
	}
	if (!sw_ddp_qp_llp_ready(cep->qp)) {
		err = -EINVAL;
		goto err_qp;
	}
	net = sctp_cm_net(id->device);
	if (!net) {
		err = -ENODEV;
		goto err_qp;
	}
	cep->cm_id = id;
	id->add_ref(id);
	/* iw_cm's m_remote_addr is the port mapper's view (or a copy) */
	err = sw_ddp_sctp_connect(net, &id->local_addr, &id->m_remote_addr,
				  id->afonly, param->private_data,
				  param->private_data_len,
				  msecs_to_jiffies(SW_DDP_SCTP_TIMEOUT_MS),
				  &sctp_cm_ops, cep, &s);
	put_net(net);
	if (err)
		goto err_ref;
	sctp_cm_adopt(cep, s);
	return 0;

err_ref:
	id->rem_ref(id);
err_qp:
	sw_ddp_qp_put(cep->qp);
err_cep:
	kfree(cep);
	return err;
}

/* Passive side, the session locked: hand it over, then the Accept. */
static int sctp_cm_accept_locked(struct sctp_cep *cep,
				 struct sw_ddp_sctp_session *s,
				 struct iw_cm_id *id,
				 struct iw_cm_conn_param *param)
{
	int err;

	if (!sw_ddp_sctp_requested(s))
		return -ECONNRESET;
	err = sw_ddp_qp_llp_attach(cep->qp, &s->llp, cep->ird, cep->ord);
	if (err)
		return err;
	err = sw_ddp_sctp_accept(s, cep, param->private_data,
				 param->private_data_len);
	if (err) {
		sw_ddp_qp_llp_detach(cep->qp);
		return err;
	}
	cep->sess = s;		/* iw_cm's reference, from the request */
	cep->cm_id = id;
	id->add_ref(id);
	cep->established = true;
	sctp_cm_event(cep, s, IW_CM_EVENT_ESTABLISHED, 0);
	return 0;
}

int sw_ddp_sctp_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct sw_ddp_sctp_session *s = sw_ddp_cm_take_request(id);
	struct sctp_cep *cep;
	int err;

	if (!s)
		return -EINVAL;		/* answered already */
	cep = kzalloc(sizeof(*cep), GFP_KERNEL);
	err = cep ? sctp_cm_check_param(param) : -ENOMEM;
	if (!err) {
		cep->ird = param->ird;
		cep->ord = param->ord;
		cep->qp = sw_ddp_qp_get_named(to_sdev(id->device), param->qpn);
		if (!cep->qp)
			err = -EINVAL;
	}
	sw_ddp_sctp_lock(s);
	if (!err)
		err = sctp_cm_accept_locked(cep, s, id, param);
	if (err)
		sw_ddp_sctp_close(s);	/* a Terminate; no event follows */
	sw_ddp_sctp_unlock(s);
	if (!err)
		return 0;
	if (cep && cep->qp)
		sw_ddp_qp_put(cep->qp);
	kfree(cep);
	sw_ddp_sctp_put(s);	/* iw_cm's, from the request */
	return err;
}

int sw_ddp_sctp_iw_reject(struct iw_cm_id *id, const void *pdata,
			  u8 pdata_len)
{
	struct sw_ddp_sctp_session *s = sw_ddp_cm_take_request(id);
	int err;

	if (!s)
		return -EINVAL;		/* answered already */
	sw_ddp_sctp_lock(s);
	err = sw_ddp_sctp_reject(s, pdata, pdata_len);
	sw_ddp_sctp_unlock(s);
	sw_ddp_sctp_put(s);	/* iw_cm's, from the request */
	return err == -ECONNRESET ? 0 : err;
}

int sw_ddp_sctp_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct net_device *netdev = to_sdev(id->device)->netdev;
	struct sw_ddp_sctp_listener *l;
	struct net *net;
	int err;

	net = sctp_cm_net(id->device);
	if (!net)
		return -ENODEV;
	/* a wildcard listens on this device's interface only */
	err = sw_ddp_sctp_listen(net, &id->local_addr, backlog,
				 netdev->ifindex, id->afonly, &sctp_cm_ops, id,
				 &l);
	put_net(net);
	if (err)
		return err;
	id->add_ref(id);
	id->provider_data = l;
	return 0;
}

int sw_ddp_sctp_iw_destroy_listen(struct iw_cm_id *id)
{
	struct sw_ddp_sctp_listener *l = id->provider_data;

	if (!l)
		return 0;
	/* after this no ops->request can run for @id */
	sw_ddp_sctp_listen_close(l);
	id->provider_data = NULL;
	id->rem_ref(id);
	return 0;
}
