/* protobuf.c - the protocol buffers wire format, writing side (protobuf.h). */
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "protobuf.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

void pb_buf_free(struct pb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static void put(struct pb_buf *b, const void *p, size_t n)
{
	if (b->failed || !n)
		return;
	if (b->len + n < b->len || GROW_ARRAY(b->data, b->cap, b->len + n) < 0) {
		b->failed = true;
		return;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static size_t varint_bytes(uint64_t v, unsigned char out[10])
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

static void put_varint(struct pb_buf *b, uint64_t v)
{
	unsigned char out[10];

	put(b, out, varint_bytes(v, out));
}

static void put_tag(struct pb_buf *b, uint32_t field, unsigned wire)
{
	put_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	put_tag(b, field, WIRE_VARINT);
	put_varint(b, v);
}

void pb_int(struct pb_buf *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n)
{
	put_tag(b, field, WIRE_LEN);
	put_varint(b, n);
	put(b, p, n);
}

void pb_string(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *msg)
{
	if (msg->failed)
		b->failed = true;
	pb_bytes(b, field, msg->data, msg->len);
}

void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	unsigned char out[10];
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += varint_bytes(v[i], out);
	put_tag(b, field, WIRE_LEN);
	put_varint(b, len);
	for (size_t i = 0; i < n; i++)
		put_varint(b, v[i]);
}
