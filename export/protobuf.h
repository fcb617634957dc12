/* protobuf.h - the protocol buffers wire format, writing side only
 * (https://protobuf.dev/programming-guides/encoding/): varints, tags,
 * length-delimited fields and packed repeated varints, what the pprof
 * output (pprof.c) needs.  A message is built in a buffer; a nested
 * message is built in a buffer of its own and added as bytes.
 */
#ifndef SAMPLER_EXPORT_PROTOBUF_H
#define SAMPLER_EXPORT_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_buf {
	unsigned char *data;
	size_t len, cap;
	bool failed;			/* out of memory: what follows is dropped */
};

void pb_buf_free(struct pb_buf *b);

/* Field number field as a varint (wire type 0): unsigned, and int64 as
 * its two's complement (ten bytes for a negative value). */
void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v);
void pb_int(struct pb_buf *b, uint32_t field, int64_t v);

/* A length-delimited field (wire type 2): bytes, a string, an embedded
 * message (a buffer of its own). */
void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n);
void pb_string(struct pb_buf *b, uint32_t field, const char *s);
void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *msg);

/* A repeated varint field, packed (one length-delimited field). */
void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);

#endif
