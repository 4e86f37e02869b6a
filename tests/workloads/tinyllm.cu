/*
 * tinyllm: a small fp32 decoder-only transformer in CUDA C, the first test
 * workload of lp.  Projections and the MLP run through cuBLAS (GEMM in
 * prefill, GEMV in decode); normalisation, softmax, SwiGLU and the rest are
 * hand-written kernels.  Stages are NVTX push/pop ranges in the named domain
 * "LLM": prefill, decode_all, and one decode_step per generated token.
 *
 * Weights are random (a hash of the index): the point is the kernel mix and
 * the launch pattern of a real decoder, not the text it writes.
 *
 * usage: tinyllm [--layers N] [--hidden D] [--heads H] [--ffn F] [--vocab V]
 *                [--prompt P] [--tokens T] [--fail CODE] [--unfused]
 * --fail CODE exits with CODE after decoding (to test lp's error path).
 * --unfused runs RMSNorm and SwiGLU as two kernels each instead of one (the
 * "before" of a fusion, to test lp's run comparison).
 */
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <nvtx3/nvToolsExt.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "tinyllm: %s:%d: %s\n", __FILE__, __LINE__, \
	    cudaGetErrorString(e_)); exit(2); } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
	fprintf(stderr, "tinyllm: %s:%d: cublas status %d\n", __FILE__, \
	    __LINE__, (int)s_); exit(2); } } while (0)
#define KCHECK() CK(cudaGetLastError())

struct cfg { int layers, d, heads, ffn, vocab, prompt, tokens, fail, unfused; };

struct layer {
	float *wqkv;	/* d x 3d, column-major (cuBLAS): q,k,v = W^T h */
	float *wo;	/* d x d */
	float *w13;	/* d x 2ffn: gate and up projections */
	float *w2;	/* ffn x d */
	float *kc, *vc;	/* caches: ctx x d, row t holds token t */
};

static nvtxDomainHandle_t dom;

static void push(const char *msg)
{
	nvtxEventAttributes_t a;
	memset(&a, 0, sizeof a);
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = msg;
	nvtxDomainRangePushEx(dom, &a);
}

static void pop(void) { nvtxDomainRangePop(dom); }

__global__ void init_uniform(float *p, size_t n, unsigned seed, float scale)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	unsigned x = (unsigned)i * 2654435761u ^ seed * 40503u;
	x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
	p[i] = ((x & 0xffffff) / 16777216.0f - 0.5f) * 2.0f * scale;
}

__global__ void embed_lookup(float *x, const float *emb, const int *tok, int n, int d)
{
	int t = blockIdx.x, i = threadIdx.x;
	for (; i < d; i += blockDim.x)
		x[(size_t)t * d + i] = emb[(size_t)tok[t] * d + i];
	(void)n;
}

/* In place RMSNorm of n rows of length d (weights are all one). */
__global__ void rmsnorm(float *x, int n, int d)
{
	__shared__ float red[32];
	float *r = x + (size_t)blockIdx.x * d;
	float s = 0.0f;
	for (int i = threadIdx.x; i < d; i += blockDim.x)
		s += r[i] * r[i];
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x < 32) {
		s = threadIdx.x < blockDim.x / 32 ? red[threadIdx.x] : 0.0f;
		for (int o = 16; o > 0; o >>= 1)
			s += __shfl_xor_sync(0xffffffffu, s, o);
		if (threadIdx.x == 0)
			red[0] = rsqrtf(s / d + 1e-6f);
	}
	__syncthreads();
	for (int i = threadIdx.x; i < d; i += blockDim.x)
		r[i] *= red[0];
	(void)n;
}

/* The unfused RMSNorm: one kernel sums the squares of each row, another
 * scales it. */
__global__ void rms_sumsq(float *ss, const float *x, int d)
{
	__shared__ float red[32];
	const float *r = x + (size_t)blockIdx.x * d;
	float s = 0.0f;
	for (int i = threadIdx.x; i < d; i += blockDim.x)
		s += r[i] * r[i];
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		float t = 0.0f;
		for (int w = 0; w < (int)blockDim.x / 32; w++)
			t += red[w];
		ss[blockIdx.x] = rsqrtf(t / d + 1e-6f);
	}
}

__global__ void rms_scale(float *x, const float *ss, int d)
{
	float *r = x + (size_t)blockIdx.x * d;
	for (int i = threadIdx.x; i < d; i += blockDim.x)
		r[i] *= ss[blockIdx.x];
}

/* Softmax over rows of length len, stored stride floats apart.  With
 * causal_rows set, row r is query r % causal_rows of its head and only sees
 * columns <= that query (the prompt's causal mask). */
__global__ void softmax_rows(float *s, int len, int stride, int causal_rows)
{
	__shared__ float red[32];
	float *r = s + (size_t)blockIdx.y * stride;
	int lim = causal_rows ? (int)(blockIdx.y % causal_rows) + 1 : len;
	int nw = blockDim.x / 32;
	float m = -INFINITY;
	for (int i = threadIdx.x; i < lim; i += blockDim.x)
		m = fmaxf(m, r[i]);
	for (int o = 16; o > 0; o >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = m;
	__syncthreads();
	m = red[0];
	for (int w = 1; w < nw; w++)
		m = fmaxf(m, red[w]);
	__syncthreads();
	float sum = 0.0f;
	for (int i = threadIdx.x; i < len; i += blockDim.x) {
		float e = i < lim ? __expf(r[i] - m) : 0.0f;
		r[i] = e;
		sum += e;
	}
	for (int o = 16; o > 0; o >>= 1)
		sum += __shfl_xor_sync(0xffffffffu, sum, o);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = sum;
	__syncthreads();
	sum = 0.0f;
	for (int w = 0; w < nw; w++)
		sum += red[w];
	for (int i = threadIdx.x; i < len; i += blockDim.x)
		r[i] /= sum;
}

/* SwiGLU: out[i] = silu(gu[i]) * gu[ffn + i], per row of 2*ffn. */
__global__ void silu_mul(float *out, const float *gu, int ffn)
{
	size_t row = blockIdx.y;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < ffn;
	    i += gridDim.x * blockDim.x) {
		float g = gu[row * 2 * ffn + i], u = gu[row * 2 * ffn + ffn + i];
		out[row * ffn + i] = g / (1.0f + __expf(-g)) * u;
	}
}

/* The unfused SwiGLU: silu of the gate, then times the up projection. */
__global__ void silu_gate(float *out, const float *gu, int ffn)
{
	size_t row = blockIdx.y;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < ffn;
	    i += gridDim.x * blockDim.x) {
		float g = gu[row * 2 * ffn + i];
		out[row * ffn + i] = g / (1.0f + __expf(-g));
	}
}

__global__ void mul_up(float *out, const float *gu, int ffn)
{
	size_t row = blockIdx.y;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < ffn;
	    i += gridDim.x * blockDim.x)
		out[row * ffn + i] *= gu[row * 2 * ffn + ffn + i];
}

__global__ void add_inplace(float *x, const float *y, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += y[i];
}

/* Copies k and v rows of a qkv block (n rows of 3d) into the caches at pos. */
__global__ void kv_append(float *kc, float *vc, const float *qkv, int pos, int d)
{
	int t = blockIdx.x;
	for (int i = threadIdx.x; i < d; i += blockDim.x) {
		kc[(size_t)(pos + t) * d + i] = qkv[(size_t)t * 3 * d + d + i];
		vc[(size_t)(pos + t) * d + i] = qkv[(size_t)t * 3 * d + 2 * d + i];
	}
}

/* Greedy sampling: one block finds the arg max of the logits. */
__global__ void argmax(int *out, const float *logits, int v)
{
	__shared__ float bv[256];
	__shared__ int bi[256];
	float m = -INFINITY;
	int mi = 0;
	for (int i = threadIdx.x; i < v; i += blockDim.x)
		if (logits[i] > m) { m = logits[i]; mi = i; }
	bv[threadIdx.x] = m;
	bi[threadIdx.x] = mi;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s && bv[threadIdx.x + s] > bv[threadIdx.x]) {
			bv[threadIdx.x] = bv[threadIdx.x + s];
			bi[threadIdx.x] = bi[threadIdx.x + s];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0)
		*out = bi[0];
}

/* RMSNorm of n rows: one kernel, or two with --unfused. */
static void norm(const struct cfg *c, float *h, float *ss, int n, int d)
{
	if (c->unfused) {
		rms_sumsq<<<n, 256>>>(ss, h, d);
		rms_scale<<<n, 256>>>(h, ss, d);
	} else
		rmsnorm<<<n, 256>>>(h, n, d);
	KCHECK();
}

/* SwiGLU of n rows: one kernel, or two with --unfused. */
static void swiglu(const struct cfg *c, float *a, const float *gu, int n)
{
	if (c->unfused) {
		silu_gate<<<dim3(8, n), 256>>>(a, gu, c->ffn);
		mul_up<<<dim3(8, n), 256>>>(a, gu, c->ffn);
	} else
		silu_mul<<<dim3(8, n), 256>>>(a, gu, c->ffn);
	KCHECK();
}

static float *dalloc(size_t n, unsigned seed, float scale)
{
	float *p;
	CK(cudaMalloc(&p, n * sizeof *p));
	init_uniform<<<(unsigned)((n + 255) / 256), 256>>>(p, n, seed, scale);
	KCHECK();
	return p;
}

static int argint(int argc, char **argv, int *i, const char *name)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "tinyllm: %s needs a value\n", name);
		exit(2);
	}
	char *end;
	long v = strtol(argv[++*i], &end, 10);
	if (*end || v < 0 || v > 1 << 20) {
		fprintf(stderr, "tinyllm: bad %s: %s\n", name, argv[*i]);
		exit(2);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	struct cfg c = { 4, 1024, 8, 2816, 8192, 64, 16, 0, 0 };
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--layers")) c.layers = argint(argc, argv, &i, argv[i]);
		else if (!strcmp(argv[i], "--hidden")) c.d = argint(argc, argv, &i, argv[i]);
		else if (!strcmp(argv[i], "--heads")) c.heads = argint(argc, argv, &i, argv[i]);
		else if (!strcmp(argv[i], "--ffn")) c.ffn = argint(argc, argv, &i, argv[i]);
		else if (!strcmp(argv[i], "--vocab")) c.vocab = argint(argc, argv, &i, argv[i]);
		else if (!strcmp(argv[i], "--prompt")) c.prompt = argint(argc, argv, &i, argv[i]);
		else if (!strcmp(argv[i], "--tokens")) c.tokens = argint(argc, argv, &i, argv[i]);
		else if (!strcmp(argv[i], "--fail")) c.fail = argint(argc, argv, &i, argv[i]);
		else if (!strcmp(argv[i], "--unfused")) c.unfused = 1;
		else {
			fprintf(stderr, "usage: tinyllm [--layers N] [--hidden D] [--heads H] "
			    "[--ffn F] [--vocab V] [--prompt P] [--tokens T] [--fail CODE] "
			    "[--unfused]\n");
			return 2;
		}
	}
	if (c.layers < 1 || c.d < 64 || c.d % c.heads || c.prompt < 1 || c.tokens < 1) {
		fprintf(stderr, "tinyllm: bad shape\n");
		return 2;
	}
	const int d = c.d, hd = d / c.heads, ctx = c.prompt + c.tokens, P = c.prompt;
	dom = nvtxDomainCreateA("LLM");

	cublasHandle_t cb;
	CB(cublasCreate(&cb));
	const float one = 1.0f, zero = 0.0f, scale = 1.0f / sqrtf((float)hd);
	float ws = 1.0f / sqrtf((float)d);
	struct layer *L = (struct layer *)calloc(c.layers, sizeof *L);
	for (int l = 0; l < c.layers; l++) {
		L[l].wqkv = dalloc((size_t)d * 3 * d, 10 * l + 1, ws);
		L[l].wo = dalloc((size_t)d * d, 10 * l + 2, ws);
		L[l].w13 = dalloc((size_t)d * 2 * c.ffn, 10 * l + 3, ws);
		L[l].w2 = dalloc((size_t)c.ffn * d, 10 * l + 4, 1.0f / sqrtf((float)c.ffn));
		L[l].kc = dalloc((size_t)ctx * d, 0, 0.0f);
		L[l].vc = dalloc((size_t)ctx * d, 0, 0.0f);
	}
	float *emb = dalloc((size_t)c.vocab * d, 7, 1.0f);
	float *x = dalloc((size_t)P * d, 0, 0), *h = dalloc((size_t)P * d, 0, 0);
	float *qkv = dalloc((size_t)P * 3 * d, 0, 0), *att = dalloc((size_t)P * d, 0, 0);
	float *sc = dalloc((size_t)c.heads * P * ctx, 0, 0);
	float *gu = dalloc((size_t)P * 2 * c.ffn, 0, 0), *a = dalloc((size_t)P * c.ffn, 0, 0);
	float *logits = dalloc(c.vocab, 0, 0), *ss = dalloc(P, 0, 0);
	int *tok;
	CK(cudaMalloc(&tok, P * sizeof *tok));
	int *htok = (int *)malloc(P * sizeof *htok);
	for (int i = 0; i < P; i++)
		htok[i] = (i * 7919 + 13) % c.vocab;
	CK(cudaMemcpy(tok, htok, P * sizeof *tok, cudaMemcpyHostToDevice));
	CK(cudaDeviceSynchronize());

	/* Prefill: the whole prompt at once, GEMMs over P rows. */
	push("prefill");
	embed_lookup<<<P, 256>>>(x, emb, tok, P, d);
	KCHECK();
	for (int l = 0; l < c.layers; l++) {
		CK(cudaMemcpyAsync(h, x, (size_t)P * d * sizeof *h, cudaMemcpyDeviceToDevice));
		norm(&c, h, ss, P, d);
		KCHECK();
		CB(cublasSgemm(cb, CUBLAS_OP_T, CUBLAS_OP_N, 3 * d, P, d, &one,
		    L[l].wqkv, d, h, d, &zero, qkv, 3 * d));
		kv_append<<<P, 256>>>(L[l].kc, L[l].vc, qkv, 0, d);
		KCHECK();
		/* scores[h][q][t] = K_h[t] . Q_h[q]: per head, ctx-major. */
		CB(cublasSgemmStridedBatched(cb, CUBLAS_OP_T, CUBLAS_OP_N, P, P, hd,
		    &scale, L[l].kc, d, hd, qkv, 3 * d, hd, &zero, sc, P, (long long)P * P,
		    c.heads));
		softmax_rows<<<dim3(1, P * c.heads), 256>>>(sc, P, P, P);
		KCHECK();
		CB(cublasSgemmStridedBatched(cb, CUBLAS_OP_N, CUBLAS_OP_N, hd, P, P,
		    &one, L[l].vc, d, hd, sc, P, (long long)P * P, &zero, att, d, hd,
		    c.heads));
		CB(cublasSgemm(cb, CUBLAS_OP_T, CUBLAS_OP_N, d, P, d, &one, L[l].wo, d,
		    att, d, &zero, h, d));
		add_inplace<<<(P * d + 255) / 256, 256>>>(x, h, (size_t)P * d);
		KCHECK();
		CK(cudaMemcpyAsync(h, x, (size_t)P * d * sizeof *h, cudaMemcpyDeviceToDevice));
		norm(&c, h, ss, P, d);
		KCHECK();
		CB(cublasSgemm(cb, CUBLAS_OP_T, CUBLAS_OP_N, 2 * c.ffn, P, d, &one,
		    L[l].w13, d, h, d, &zero, gu, 2 * c.ffn));
		swiglu(&c, a, gu, P);
		KCHECK();
		CB(cublasSgemm(cb, CUBLAS_OP_T, CUBLAS_OP_N, d, P, c.ffn, &one, L[l].w2,
		    c.ffn, a, c.ffn, &zero, h, d));
		add_inplace<<<(P * d + 255) / 256, 256>>>(x, h, (size_t)P * d);
		KCHECK();
	}
	CK(cudaMemcpyAsync(h, x + (size_t)(P - 1) * d, d * sizeof *h, cudaMemcpyDeviceToDevice));
	norm(&c, h, ss, 1, d);
	CB(cublasSgemv(cb, CUBLAS_OP_T, d, c.vocab, &one, emb, d, h, 1, &zero, logits, 1));
	argmax<<<1, 256>>>(tok, logits, c.vocab);
	KCHECK();
	CK(cudaDeviceSynchronize());
	pop();

	/* Decode: one token a step, GEMVs, the token read back each step. */
	push("decode_all");
	int out = 0;
	for (int s = 0; s < c.tokens; s++) {
		int pos = P + s;
		push("decode_step");
		embed_lookup<<<1, 256>>>(x, emb, tok, 1, d);
		KCHECK();
		for (int l = 0; l < c.layers; l++) {
			CK(cudaMemcpyAsync(h, x, d * sizeof *h, cudaMemcpyDeviceToDevice));
			norm(&c, h, ss, 1, d);
			CB(cublasSgemv(cb, CUBLAS_OP_T, d, 3 * d, &one, L[l].wqkv, d, h, 1,
			    &zero, qkv, 1));
			kv_append<<<1, 256>>>(L[l].kc, L[l].vc, qkv, pos, d);
			CB(cublasSgemvStridedBatched(cb, CUBLAS_OP_T, hd, pos + 1, &scale,
			    L[l].kc, d, hd, qkv, 1, hd, &zero, sc, 1, ctx, c.heads));
			softmax_rows<<<dim3(1, c.heads), 256>>>(sc, pos + 1, ctx, 0);
			CB(cublasSgemvStridedBatched(cb, CUBLAS_OP_N, hd, pos + 1, &one,
			    L[l].vc, d, hd, sc, 1, ctx, &zero, att, 1, hd, c.heads));
			CB(cublasSgemv(cb, CUBLAS_OP_T, d, d, &one, L[l].wo, d, att, 1,
			    &zero, h, 1));
			add_inplace<<<(d + 255) / 256, 256>>>(x, h, d);
			CK(cudaMemcpyAsync(h, x, d * sizeof *h, cudaMemcpyDeviceToDevice));
			norm(&c, h, ss, 1, d);
			CB(cublasSgemv(cb, CUBLAS_OP_T, d, 2 * c.ffn, &one, L[l].w13, d, h,
			    1, &zero, gu, 1));
			swiglu(&c, a, gu, 1);
			CB(cublasSgemv(cb, CUBLAS_OP_T, c.ffn, d, &one, L[l].w2, c.ffn, a,
			    1, &zero, h, 1));
			add_inplace<<<(d + 255) / 256, 256>>>(x, h, d);
			KCHECK();
		}
		CK(cudaMemcpyAsync(h, x, d * sizeof *h, cudaMemcpyDeviceToDevice));
		norm(&c, h, ss, 1, d);
		CB(cublasSgemv(cb, CUBLAS_OP_T, d, c.vocab, &one, emb, d, h, 1, &zero,
		    logits, 1));
		argmax<<<1, 256>>>(tok, logits, c.vocab);
		KCHECK();
		CK(cudaMemcpy(&out, tok, sizeof out, cudaMemcpyDeviceToHost));
		pop();
	}
	pop();
	CK(cudaDeviceSynchronize());
	printf("tinyllm: layers=%d hidden=%d heads=%d ffn=%d vocab=%d prompt=%d "
	    "tokens=%d last_token=%d\n", c.layers, d, c.heads, c.ffn, c.vocab, P,
	    c.tokens, out);
	if (c.fail) {
		fprintf(stderr, "tinyllm: failing on purpose with exit code %d\n", c.fail);
		return c.fail;
	}
	cublasDestroy(cb);
	return 0;
}
