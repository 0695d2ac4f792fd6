/* model_cfg.c - a model's settings: defaults, ranges, which one is out of
 * range and the sizes they imply (see model.h). */
#include "model.h"

#include <math.h>

void model_cfg_default(ModelCfg *c)
{
    *c = (ModelCfg){
        .layers = 1, .d_model = 8, .heads = 1, .kv_heads = 0, .d_k = 0, .d_v = 0, .d_ff = 0,
        .act = ACT_GELU, .norm = NORM_LAYER, .eps = MODEL_EPS_DEFAULT, .positions = MPOS_LEARNED,
        .rope_base = ATTN_ROPE_BASE_DEFAULT, .offset = 0, .ctx = 16, .vocab = 8,
        .unembed = UNEMBED_SEPARATE, .sample_temp = 1.0, .sample = false, .sample_seed = 0,
    };
    for (int l = 0; l < MODEL_LAYERS_MAX; l++)
        c->attn[l] = (ModelAttnOpts){.scale = SCALE_SQRT_DK, .softmax = SOFTMAX_STABLE, .mask = MASK_CAUSAL,
                                     .window = 1, .temp = 1.0, .block = ATTN_BLOCK_DEFAULT};
}

int model_kv_heads(const ModelCfg *c)
{
    return c->kv_heads > 0 ? c->kv_heads : c->heads;
}

int model_d_k(const ModelCfg *c)
{
    return c->d_k > 0 ? c->d_k : c->heads > 0 ? c->d_model / c->heads : 0;
}

int model_d_v(const ModelCfg *c)
{
    return c->d_v > 0 ? c->d_v : c->heads > 0 ? c->d_model / c->heads : 0;
}

static bool in(int v, int lo, int hi)
{
    return v >= lo && v <= hi;
}

static bool in_real(double v, double lo, double hi)
{
    return isfinite(v) && v >= lo && v <= hi;
}

/* The shape: layers, d_model, heads, kv_heads, d_k, d_v, d_ff. */
static ModelBad check_shape(const ModelCfg *c)
{
    if (!in(c->layers, 1, MODEL_LAYERS_MAX))
        return MODEL_BAD_LAYERS;
    if (!in(c->d_model, 1, MODEL_D_MAX))
        return MODEL_BAD_D_MODEL;
    if (!in(c->heads, 1, ATTN_HEADS_MAX))
        return MODEL_BAD_HEADS;
    if ((c->d_k == 0 || c->d_v == 0) && c->d_model % c->heads != 0)
        return MODEL_BAD_HEADS_DIVIDE;
    int g = model_kv_heads(c);
    if (c->kv_heads < 0 || g > c->heads || c->heads % g != 0)
        return MODEL_BAD_KV_HEADS;
    if (c->d_k < 0 || !in(model_d_k(c), 1, MAT_MAX / c->heads))
        return MODEL_BAD_D_K;
    if (c->d_v < 0 || !in(model_d_v(c), 1, MAT_MAX / c->heads))
        return MODEL_BAD_D_V;
    if (!in(c->d_ff, 0, MODEL_D_FF_MAX))
        return MODEL_BAD_D_FF;
    return MODEL_OK;
}

/* The block and the positions: act, norm, eps, positions, RoPE, ctx, offset. */
static ModelBad check_block(const ModelCfg *c)
{
    if (!in((int)c->act, ACT_RELU, ACT_GELU))
        return MODEL_BAD_ACT;
    if (!in((int)c->norm, NORM_NONE, NORM_RMS))
        return MODEL_BAD_NORM;
    if (!(isfinite(c->eps) && c->eps > 0.0 && c->eps <= MODEL_EPS_MAX))
        return MODEL_BAD_EPS;
    if (!in((int)c->positions, MPOS_LEARNED, MPOS_NONE))
        return MODEL_BAD_POSITIONS;
    if (c->positions == MPOS_ROPE && model_d_k(c) % 2 != 0)
        return MODEL_BAD_ROPE_ODD_DK;
    if (c->positions == MPOS_ROPE && !(isfinite(c->rope_base) && c->rope_base > 1.0))
        return MODEL_BAD_ROPE_BASE;
    if (!in(c->ctx, 1, MODEL_CTX_MAX))
        return MODEL_BAD_CTX;
    if (!in(c->offset, 0, c->positions == MPOS_LEARNED ? c->ctx - 1 : ATTN_OFFSET_MAX))
        return MODEL_BAD_OFFSET;
    if (!in(c->vocab, MODEL_VOCAB_MIN, MODEL_VOCAB_MAX))
        return MODEL_BAD_VOCAB;
    if (!in((int)c->unembed, UNEMBED_SEPARATE, UNEMBED_TIED))
        return MODEL_BAD_UNEMBED;
    return MODEL_OK;
}

static ModelBad check_attn(const ModelAttnOpts *o)
{
    if (!in((int)o->scale, SCALE_NONE, SCALE_SQRT_DK))
        return MODEL_BAD_SCALE;
    if (!in((int)o->softmax, SOFTMAX_NAIVE, SOFTMAX_ONLINE))
        return MODEL_BAD_SOFTMAX;
    if (!in((int)o->mask, MASK_NONE, MASK_WINDOW))
        return MODEL_BAD_MASK;
    if (o->mask == MASK_WINDOW && !in(o->window, 1, MAT_MAX))
        return MODEL_BAD_WINDOW;
    if (!in_real(o->temp, ATTN_TEMP_MIN, ATTN_TEMP_MAX))
        return MODEL_BAD_TEMP;
    if (o->softmax == SOFTMAX_ONLINE && !in(o->block, 1, MAT_MAX))
        return MODEL_BAD_BLOCK;
    return MODEL_OK;
}

int model_cfg_bad_layer(const ModelCfg *c)
{
    if (check_shape(c) != MODEL_OK || check_block(c) != MODEL_OK)
        return 0;
    for (int l = 0; l < c->layers; l++)
        if (check_attn(&c->attn[l]) != MODEL_OK)
            return l + 1;
    return 0;
}

ModelBad model_cfg_check(const ModelCfg *c)
{
    ModelBad b = check_shape(c);
    if (b == MODEL_OK)
        b = check_block(c);
    for (int l = 0; b == MODEL_OK && l < c->layers; l++)
        b = check_attn(&c->attn[l]);
    if (b != MODEL_OK)
        return b;
    if (!in_real(c->sample_temp, ATTN_TEMP_MIN, ATTN_TEMP_MAX))
        return MODEL_BAD_SAMPLE_TEMP;
    if (c->sample_seed > 4294967295UL)
        return MODEL_BAD_SAMPLE_SEED;
    return MODEL_OK;
}

static const char *const bad_keys[MODEL_BAD_COUNT] = {
    [MODEL_OK] = "", [MODEL_BAD_LAYERS] = "layers", [MODEL_BAD_D_MODEL] = "d_model",
    [MODEL_BAD_HEADS] = "heads", [MODEL_BAD_HEADS_DIVIDE] = "heads", [MODEL_BAD_KV_HEADS] = "kv_heads",
    [MODEL_BAD_D_K] = "d_k", [MODEL_BAD_D_V] = "d_v", [MODEL_BAD_D_FF] = "d_ff", [MODEL_BAD_ACT] = "act",
    [MODEL_BAD_NORM] = "norm", [MODEL_BAD_EPS] = "eps", [MODEL_BAD_POSITIONS] = "positions",
    [MODEL_BAD_ROPE_ODD_DK] = "d_k", [MODEL_BAD_ROPE_BASE] = "rope_base", [MODEL_BAD_CTX] = "ctx",
    [MODEL_BAD_OFFSET] = "offset", [MODEL_BAD_VOCAB] = "vocab", [MODEL_BAD_UNEMBED] = "unembed",
    [MODEL_BAD_SCALE] = "scale", [MODEL_BAD_SOFTMAX] = "softmax", [MODEL_BAD_MASK] = "mask",
    [MODEL_BAD_WINDOW] = "window", [MODEL_BAD_TEMP] = "temperature", [MODEL_BAD_BLOCK] = "block",
    [MODEL_BAD_SAMPLE_TEMP] = "sampling.temperature", [MODEL_BAD_SAMPLE_SEED] = "sampling.seed",
};

const char *model_bad_key(ModelBad b)
{
    return b >= MODEL_OK && b < MODEL_BAD_COUNT ? bad_keys[b] : "?";
}

void model_bad_range(const ModelCfg *c, ModelBad b, double *lo, double *hi)
{
    int h = c->heads >= 1 && c->heads <= ATTN_HEADS_MAX ? c->heads : 1;
    double r[MODEL_BAD_COUNT][2] = {
        [MODEL_BAD_LAYERS] = {1, MODEL_LAYERS_MAX}, [MODEL_BAD_D_MODEL] = {1, MODEL_D_MAX},
        [MODEL_BAD_HEADS] = {1, ATTN_HEADS_MAX}, [MODEL_BAD_KV_HEADS] = {1, h},
        [MODEL_BAD_D_K] = {1, MAT_MAX / h}, [MODEL_BAD_D_V] = {1, MAT_MAX / h},
        [MODEL_BAD_D_FF] = {0, MODEL_D_FF_MAX}, [MODEL_BAD_ACT] = {0, ACT_GELU},
        [MODEL_BAD_NORM] = {0, NORM_RMS}, [MODEL_BAD_EPS] = {0, MODEL_EPS_MAX},
        [MODEL_BAD_POSITIONS] = {0, MPOS_NONE}, [MODEL_BAD_ROPE_BASE] = {1, INFINITY},
        [MODEL_BAD_CTX] = {1, MODEL_CTX_MAX},
        [MODEL_BAD_OFFSET] = {0, c->positions == MPOS_LEARNED ? c->ctx - 1 : ATTN_OFFSET_MAX},
        [MODEL_BAD_VOCAB] = {MODEL_VOCAB_MIN, MODEL_VOCAB_MAX}, [MODEL_BAD_UNEMBED] = {0, UNEMBED_TIED},
        [MODEL_BAD_SCALE] = {0, SCALE_SQRT_DK}, [MODEL_BAD_SOFTMAX] = {0, SOFTMAX_ONLINE},
        [MODEL_BAD_MASK] = {0, MASK_WINDOW}, [MODEL_BAD_WINDOW] = {1, MAT_MAX},
        [MODEL_BAD_TEMP] = {ATTN_TEMP_MIN, ATTN_TEMP_MAX}, [MODEL_BAD_BLOCK] = {1, MAT_MAX},
        [MODEL_BAD_SAMPLE_TEMP] = {ATTN_TEMP_MIN, ATTN_TEMP_MAX}, [MODEL_BAD_SAMPLE_SEED] = {0, 4294967295.0},
    };
    bool ok = b > MODEL_OK && b < MODEL_BAD_COUNT;
    *lo = ok ? r[b][0] : 0;
    *hi = ok ? r[b][1] : 0;
}
