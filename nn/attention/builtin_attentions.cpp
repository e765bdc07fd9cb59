// builtin_attentions.cpp — the list of built-in attention variants: one registration function per
// variant file, declared and called here (the C++ analogue of fast-transformers'
// attention/__init__.py importing every module). Add a variant: its file + one line in each list.
#include "nn/attention/registry.h"

namespace lintra::nn {

void register_softmax_attention(AttentionRegistry& registry);        // softmax_attention.cpp
void register_linear_attention(AttentionRegistry& registry);         // linear_attention.cpp
void register_causal_linear_attention(AttentionRegistry& registry);  // causal_linear_attention.cpp
void register_reformer_attention(AttentionRegistry& registry);       // reformer_attention.cpp

void register_builtin_attentions(AttentionRegistry& registry) {
  register_softmax_attention(registry);
  register_linear_attention(registry);
  register_causal_linear_attention(registry);
  register_reformer_attention(registry);
}

}  // namespace lintra::nn
