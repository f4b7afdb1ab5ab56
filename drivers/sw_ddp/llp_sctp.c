// SPDX-License-Identifier: GPL-2.0
/*
 * DDP over SCTP (RFC 5043): validation of the DDP payload data chunks
 * and of the Adaptation Layer Indication, DDP-SSN window arithmetic and
 * Stream Session Control messages.
 */
#include <linux/module.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "llp_sctp.h"

/*
 * RFC 5043 §9: the largest DDP Segment to advertise is what fits without
 * IP or SCTP fragmentation, but never below 516 octets.
 */
u32 sctp_ddp_max_seg(u32 path_limit)
{
	return max_t(u32, path_limit, SCTP_DDP_MIN_SEG_LIMIT);
}
EXPORT_SYMBOL_IF_KUNIT(sctp_ddp_max_seg);

/*
 * RFC 5043 §10: with fewer than 32768 chunks in flight, a DDP-SSN is
 * legal if it lies in [next, next + window) in 16-bit serial arithmetic;
 * anything before @next was already received.
 */
bool sctp_ddp_ssn_in_window(u16 ssn, u16 next, u16 window)
{
	if (window > SCTP_DDP_SSN_WINDOW_MAX)
		window = SCTP_DDP_SSN_WINDOW_MAX;
	return sctp_ddp_ssn_delta(next, ssn) < window;
}
EXPORT_SYMBOL_IF_KUNIT(sctp_ddp_ssn_in_window);

/* RFC 5043 §5.1, §11.1: the INIT/INIT-ACK must indicate DDP. */
enum sctp_ddp_verdict sctp_ddp_validate_adapt(const void *param, u32 len)
{
	struct sctp_ddp_adapt_param p;

	if (len < sizeof(p))
		return SCTP_DDP_BAD_LEN;
	memcpy(&p, param, sizeof(p));
	if (be16_to_cpu(p.type) != SCTP_DDP_ADAPT_PARAM_TYPE ||
	    be16_to_cpu(p.length) != sizeof(p))
		return SCTP_DDP_BAD_LEN;
	if (be32_to_cpu(p.indication) != SCTP_DDP_ADAPT_IND_DDP)
		return SCTP_DDP_BAD_ADAPT;
	return SCTP_DDP_OK;
}
EXPORT_SYMBOL_IF_KUNIT(sctp_ddp_validate_adapt);

/* RFC 5043 §5.2.3: function code and private data rules */
static enum sctp_ddp_verdict sctp_ddp_check_ctrl(const u8 *chunk, u32 len)
{
	struct sctp_ddp_session_ctrl h;
	u32 pdata_len;

	if (len < sizeof(h))
		return SCTP_DDP_BAD_LEN;
	memcpy(&h, chunk, sizeof(h));
	pdata_len = len - sizeof(h);
	switch (be16_to_cpu(h.func)) {
	case SCTP_DDP_FUNC_INITIATE:
	case SCTP_DDP_FUNC_ACCEPT:
	case SCTP_DDP_FUNC_REJECT:
		/* "Private Data length MUST NOT exceed 512 bytes" */
		return pdata_len > SCTP_DDP_PDATA_MAX ? SCTP_DDP_BAD_PDATA :
							SCTP_DDP_OK;
	case SCTP_DDP_FUNC_TERMINATE:
		/* "Private Data MUST NOT be included in ... Terminate" */
		return pdata_len ? SCTP_DDP_PDATA_ON_TERM : SCTP_DDP_OK;
	default:
		return SCTP_DDP_BAD_FUNC;
	}
}

/* RFC 5043 §5.2.2: DDP-SSN then one DDP Segment, at most max_seg (§9) */
static enum sctp_ddp_verdict sctp_ddp_check_seg(u32 len, u32 max_seg)
{
	if (len <= sizeof(struct sctp_ddp_seg_chunk))
		return SCTP_DDP_BAD_LEN;
	if (len - sizeof(struct sctp_ddp_seg_chunk) > max_seg)
		return SCTP_DDP_SEG_TOO_BIG;
	return SCTP_DDP_OK;
}

/**
 * sctp_ddp_validate_chunk() - check one received DDP payload data chunk
 * @ppid: its SCTP Payload Protocol Identifier, host order
 * @chunk: the chunk's user data, starting at the DDP-SSN
 * @len: its length
 * @lim: receive state; NULL skips the DDP-SSN and size checks
 *
 * The DDP Segment inside a segment chunk is checked by the DDP layer.
 *
 * Return: SCTP_DDP_OK, or why the DDP Stream Session must end (§6.1).
 */
enum sctp_ddp_verdict
sctp_ddp_validate_chunk(u32 ppid, const void *chunk, u32 len,
			const struct sctp_ddp_rx_limits *lim)
{
	enum sctp_ddp_verdict v;

	if (ppid == SCTP_DDP_PPID_SESSION_CTRL)
		v = sctp_ddp_check_ctrl(chunk, len);
	else if (ppid == SCTP_DDP_PPID_SEGMENT)
		v = sctp_ddp_check_seg(len, lim ? lim->max_seg : U32_MAX);
	else
		return SCTP_DDP_BAD_PPID;
	if (v != SCTP_DDP_OK || !lim)
		return v;
	if (!sctp_ddp_ssn_in_window(sctp_ddp_ssn(chunk), lim->next_ssn,
				    lim->window))
		return SCTP_DDP_BAD_SSN;
	return SCTP_DDP_OK;
}
EXPORT_SYMBOL_IF_KUNIT(sctp_ddp_validate_chunk);

/**
 * sctp_ddp_session_ctrl_build() - write a Stream Session Control chunk
 * @buf: destination
 * @size: room at @buf
 * @ssn: its DDP-SSN
 * @func: function code
 * @pdata: private data, NULL if @pdata_len is 0
 * @pdata_len: at most 512, and 0 for Terminate (RFC 5043 §5.2.3)
 *
 * Return: octets written, -EINVAL, or -ENOSPC.
 */
int sctp_ddp_session_ctrl_build(u8 *buf, u32 size, u16 ssn,
				enum sctp_ddp_func func, const void *pdata,
				u16 pdata_len)
{
	struct sctp_ddp_session_ctrl h = {
		.ssn = cpu_to_be16(ssn),
		.func = cpu_to_be16(func),
	};

	if (func < SCTP_DDP_FUNC_INITIATE || func > SCTP_DDP_FUNC_TERMINATE ||
	    pdata_len > SCTP_DDP_PDATA_MAX ||
	    (func == SCTP_DDP_FUNC_TERMINATE && pdata_len))
		return -EINVAL;
	if (sizeof(h) + pdata_len > size)
		return -ENOSPC;
	memcpy(buf, &h, sizeof(h));
	if (pdata_len)
		memcpy(buf + sizeof(h), pdata, pdata_len);
	return sizeof(h) + pdata_len;
}
EXPORT_SYMBOL_IF_KUNIT(sctp_ddp_session_ctrl_build);
