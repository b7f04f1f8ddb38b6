# Minimal re-implementation of transformers 4.38.2 LlamaForCausalLM (SDPA path, training, no cache),
# keeping the memory-relevant details: the 4D causal mask built from a max_position_embeddings^2 buffer,
# per-layer rotary cos/sin, the cache_position-indexed mask slice, logits.float() and the shifted fp32 copy
# in the loss.  Plus a PEFT-0.9.0-style LoRA Linear (lora_A/lora_B ModuleDicts) and a bnb-style 4-bit
# stand-in (a custom autograd Function that saves no activation, like bnb MatMul4Bit).
import math, torch, torch.nn as nn, torch.nn.functional as F


class Cfg:
    def __init__(self, L=8, H=1024, I=2752, nh=16, V=2000, max_pos=4096):
        self.L, self.H, self.I, self.nh, self.V, self.max_pos = L, H, I, nh, V, max_pos
        self.hd = H // nh


class LlamaRMSNorm(nn.Module):
    def __init__(self, H, eps=1e-5):
        super().__init__(); self.weight = nn.Parameter(torch.ones(H)); self.eps = eps
    def forward(self, h):
        dt = h.dtype
        h = h.to(torch.float32)
        var = h.pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(var + self.eps)
        return self.weight * h.to(dt)


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
    @torch.no_grad()
    def forward(self, x, position_ids):
        inv = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        pos = position_ids[:, None, :].float()
        freqs = (inv @ pos).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]; x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin):
    cos = cos.unsqueeze(1); sin = sin.unsqueeze(1)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


class LlamaSdpaAttention(nn.Module):
    def __init__(self, c):
        super().__init__(); self.c = c
        self.q_proj = nn.Linear(c.H, c.H, bias=False); self.k_proj = nn.Linear(c.H, c.H, bias=False)
        self.v_proj = nn.Linear(c.H, c.H, bias=False); self.o_proj = nn.Linear(c.H, c.H, bias=False)
        self.rotary_emb = LlamaRotaryEmbedding(c.hd)
    def forward(self, h, attention_mask=None, position_ids=None, cache_position=None):
        B, S, _ = h.shape; c = self.c
        q = self.q_proj(h).view(B, S, c.nh, c.hd).transpose(1, 2)
        k = self.k_proj(h).view(B, S, c.nh, c.hd).transpose(1, 2)
        v = self.v_proj(h).view(B, S, c.nh, c.hd).transpose(1, 2)
        cos, sin = self.rotary_emb(v, position_ids)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        causal_mask = attention_mask
        if attention_mask is not None and cache_position is not None:
            causal_mask = causal_mask[:, :, cache_position, : k.shape[-2]]
        # (4.38: .contiguous() on q,k,v when device is cuda and a mask is given)
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        if ATTN_EMU:
            o = _MemEffAttnEmu.apply(q, k, v, causal_mask)
        else:
            o = F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask, dropout_p=0.0)
        o = o.transpose(1, 2).contiguous().view(B, S, c.H)
        return self.o_proj(o)


import os
ATTN_EMU = os.environ.get("ATTN_EMU", "0") == "1"


class _MemEffAttnEmu(torch.autograd.Function):
    """Memory stand-in for CUDA mem-efficient SDPA with an attn_mask (torch 2.2): the output, the logsumexp
    (fp32, B x nh x ceil(S/32)*32) and q, k, v, mask saved; backward allocates dq, dk, dv and a fp32 delta."""
    @staticmethod
    def forward(ctx, q, k, v, mask):
        o = torch.empty_like(q)
        B, nh, S, _ = q.shape
        lse = torch.empty(B, nh, (S + 31) // 32 * 32, dtype=torch.float32, device=q.device)
        ctx.save_for_backward(q, k, v, o, lse, mask)
        return o
    @staticmethod
    def backward(ctx, g):
        q, k, v, o, lse, mask = ctx.saved_tensors
        delta = torch.empty_like(lse)
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
        del delta
        return dq, dk, dv, None


class LlamaMLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c.H, c.I, bias=False); self.up_proj = nn.Linear(c.H, c.I, bias=False)
        self.down_proj = nn.Linear(c.I, c.H, bias=False)
    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaDecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = LlamaSdpaAttention(c); self.mlp = LlamaMLP(c)
        self.input_layernorm = LlamaRMSNorm(c.H); self.post_attention_layernorm = LlamaRMSNorm(c.H)
    def forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
                output_attentions=False, use_cache=False, cache_position=None):
        r = hidden_states
        h = self.input_layernorm(hidden_states)
        h = self.self_attn(h, attention_mask=attention_mask, position_ids=position_ids, cache_position=cache_position)
        h = r + h
        r = h
        h = self.post_attention_layernorm(h)
        h = self.mlp(h)
        h = r + h
        return (h,)


class LlamaModel(nn.Module):
    def __init__(self, c):
        super().__init__(); self.c = c
        self.embed_tokens = nn.Embedding(c.V, c.H)
        self.layers = nn.ModuleList([LlamaDecoderLayer(c) for _ in range(c.L)])
        self.norm = LlamaRMSNorm(c.H)
        cm = torch.full((c.max_pos, c.max_pos), fill_value=True, dtype=torch.bool)
        self.register_buffer("causal_mask", torch.triu(cm, diagonal=1), persistent=False)
    def _update_causal_mask(self, attention_mask, input_tensor):
        B, S = input_tensor.shape[:2]; dtype = input_tensor.dtype
        min_dtype = torch.finfo(dtype).min
        causal_mask = self.causal_mask[None, None, :, :].repeat(B, 1, 1, 1).to(dtype) * min_dtype
        causal_mask = causal_mask.to(dtype=dtype, device=input_tensor.device)
        return causal_mask
    def forward(self, input_ids, attention_mask=None):
        inputs_embeds = self.embed_tokens(input_ids)
        cache_position = torch.arange(0, inputs_embeds.shape[1], device=inputs_embeds.device)
        position_ids = cache_position.unsqueeze(0)
        causal_mask = self._update_causal_mask(attention_mask, inputs_embeds) if self.c.max_pos > 0 else None
        h = inputs_embeds
        for layer in self.layers:
            h = layer(h, attention_mask=causal_mask, position_ids=position_ids, past_key_value=None,
                      output_attentions=False, use_cache=False, cache_position=cache_position)[0]
        return self.norm(h)


from transformers.modeling_outputs import CausalLMOutputWithPast as _HFOut   # a ModelOutput (OrderedDict): FSDP
def Out(loss, logits):                                                     # traverses it to hook the root outputs
    return _HFOut(loss=loss, logits=logits)


class LlamaForCausalLM(nn.Module):
    def __init__(self, c):
        super().__init__(); self.c = c
        self.model = LlamaModel(c); self.lm_head = nn.Linear(c.H, c.V, bias=False)
    def get_input_embeddings(self): return self.model.embed_tokens
    def enable_input_require_grads(self):
        def make_inputs_require_grads(module, input, output): output.requires_grad_(True)
        self._require_grads_hook = self.get_input_embeddings().register_forward_hook(make_inputs_require_grads)
    def forward(self, input_ids, labels=None, attention_mask=None):
        h = self.model(input_ids, attention_mask=attention_mask)
        logits = self.lm_head(h)
        variant = os.environ.get("LOSS", "hf_shift")
        if variant == "hf":                 # transformers >= 4.49: labels padded, one fp32 upcast
            lab = nn.functional.pad(labels, (0, 1), value=-100)[..., 1:].contiguous()
            loss = nn.functional.cross_entropy(logits.float().view(-1, self.c.V), lab.view(-1), ignore_index=-100)
            return Out(loss, logits)
        if variant in ("half", "half_autocast"):   # Qwen v1: CE on the 16-bit shifted copy
            shift_logits = logits[..., :-1, :].contiguous()
            x = shift_logits.view(-1, self.c.V)
            if variant == "half_autocast":  # autocast runs cross_entropy in fp32: a cast of its input
                x = x.float()
            loss = nn.CrossEntropyLoss()(x, labels[..., 1:].contiguous().view(-1))
            del shift_logits, x
            if variant == "half_autocast":  # Accelerate's convert_outputs_to_fp32 on the returned logits
                logits = logits.float()
            return Out(loss, logits)
        logits = logits.float()
        loss = None
        if labels is not None:
            shift_logits = logits[..., :-1, :].contiguous()
            shift_labels = labels[..., 1:].contiguous()
            loss = nn.CrossEntropyLoss()(shift_logits.view(-1, self.c.V), shift_labels.view(-1))
        return Out(loss, logits)


# ---------------- LoRA (PEFT 0.9.0 lora.Linear.forward, tuners/lora/layer.py:150-176) -------------
class LoraLinear(nn.Module):
    def __init__(self, base, r, alpha, dropout, bnb_style=False):
        super().__init__()
        self.base_layer = base; self.bnb_style = bnb_style
        dt = next(base.parameters()).dtype
        self.lora_dropout = nn.ModuleDict({"default": nn.Dropout(dropout) if dropout > 0 else nn.Identity()})
        self.lora_A = nn.ModuleDict({"default": nn.Linear(base.in_features, r, bias=False, dtype=dt)})
        self.lora_B = nn.ModuleDict({"default": nn.Linear(r, base.out_features, bias=False, dtype=dt)})
        nn.init.zeros_(self.lora_B["default"].weight)
        self.scaling = {"default": alpha / r}
    def forward(self, x):
        if not self.bnb_style:           # peft 0.9.0 lora/layer.py Linear.forward
            result = self.base_layer(x)
            tdt = result.dtype
            A, Bm, d, s = self.lora_A["default"], self.lora_B["default"], self.lora_dropout["default"], self.scaling["default"]
            x = x.to(A.weight.dtype)
            result = result + Bm(A(d(x))) * s
            return result.to(tdt)
        # peft 0.9.0 lora/bnb.py Linear4bit.forward
        result = self.base_layer(x)
        result = result.clone()
        A, Bm, d, s = self.lora_A["default"], self.lora_B["default"], self.lora_dropout["default"], self.scaling["default"]
        requires_conversion = not torch.is_autocast_enabled()
        if requires_conversion:
            expected_dtype = result.dtype
            x = x.to(A.weight.dtype)
        output = Bm(A(d(x)))
        if requires_conversion:
            output = output.to(expected_dtype)
        output = output * s
        return result + output


class _Fake4bitMatMul(torch.autograd.Function):
    """Stand-in for bnb MatMul4Bit: dequantize W in forward and again in backward; save no activation."""
    @staticmethod
    def forward(ctx, x, packed, shape):
        W = packed.view(torch.bfloat16)[: shape[0] * shape[1]].view(shape)  # 'dequantize' (a view here)
        ctx.packed, ctx.shape = packed, shape
        return F.linear(x, W.clone())       # the clone stands for the dequantized bf16 weight
    @staticmethod
    def backward(ctx, g):
        W = ctx.packed.view(torch.bfloat16)[: ctx.shape[0] * ctx.shape[1]].view(ctx.shape).clone()
        return g @ W, None, None


class Fake4bitLinear(nn.Module):
    """Holds a bf16 'storage' parameter of the 4-bit size (out*in/4 bf16 elements = 0.5 B/param)."""
    def __init__(self, lin):
        super().__init__()
        self.in_features, self.out_features = lin.in_features, lin.out_features
        # to keep the math simple the packed buffer is the full bf16 weight (size does not matter for per-token)
        self.weight = nn.Parameter(lin.weight.detach().to(torch.bfloat16).reshape(-1).clone(), requires_grad=False)
    def forward(self, x):
        return _Fake4bitMatMul.apply(x, self.weight, (self.out_features, self.in_features))


def inject_lora(model, targets, r, alpha, dropout, qlora=False):
    for name, mod in list(model.named_modules()):
        parent_name, _, child = name.rpartition(".")
        if child in targets and isinstance(mod, nn.Linear):
            parent = model.get_submodule(parent_name)
            base = Fake4bitLinear(mod) if qlora else mod
            setattr(parent, child, LoraLinear(base, r, alpha, dropout, bnb_style=qlora))
    for n, p in model.named_parameters():
        p.requires_grad = ("lora_A" in n) or ("lora_B" in n)
    return model
