/* ======================================================================== */
/* >>api_chat                                                               */
/* ======================================================================== */

typedef enum gk_chat_format {
    GK_CHAT_UNKNOWN = 0,
    GK_CHAT_CHATML,   /* <|im_start|>role\ncontent<|im_end|>\n (Qwen2 / Qwen2.5 without tools) */
    GK_CHAT_QWEN3,    /* ChatML with Qwen3's <think> handling */
    GK_CHAT_LLAMA3,   /* <|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|> */
    GK_CHAT_LLAMA2,   /* <s>[INST] <<SYS>>\n..\n<</SYS>>\n\nuser [/INST] assistant </s> */
    GK_CHAT_MISTRAL   /* <s>[INST] user [/INST]assistant</s> */
} gk_chat_format;

typedef struct gk_chat_message { const char *role; const char *content; } gk_chat_message;

typedef struct gk_chat_template {
    gk_chat_format format;
    char bos[64], eos[64];          /* bos_token / eos_token text from the config */
    char default_system[160];       /* system prompt added when none is given ("" = none) */
    int always_generation_prompt;   /* template appends the assistant header unconditionally */
} gk_chat_template;

enum { GK_CHAT_ADD_GENERATION_PROMPT = 1, GK_CHAT_NO_THINKING = 2 /* Qwen3 enable_thinking=false */ };

/* Reads tokenizer_config.json and recognises its chat_template (a string,
   or HF's list of {name, template}: the one named "default"). bos_token /
   eos_token: a string, {"content": ...} or null; longer than 63 bytes is
   GK_ERR_LIMIT (gk_chat_template holds them whole). Errors name the file. */
GKLLMDEF gk_status gk_chat_template_load(const char *tokenizer_config_path, gk_chat_template *out);
GKLLMDEF gk_status gk_chat_template_from_config(const gk_json_value *config, gk_chat_template *out);
/* Recognises a Jinja template text; unknown -> GK_ERR_UNSUPPORTED quoting it. */
GKLLMDEF gk_status gk_chat_template_detect(const char *jinja, const char *bos, const char *eos, gk_chat_template *out);
/* A built-in format by name: "chatml", "qwen3", "llama3", "llama2", "mistral". */
GKLLMDEF gk_status gk_chat_template_builtin(const char *name, const char *bos, const char *eos, gk_chat_template *out);
/* Renders the conversation as text (append to out). flags: GK_CHAT_*. */
GKLLMDEF gk_status gk_chat_apply(const gk_chat_template *t, const gk_chat_message *msgs, size_t n, unsigned flags, gk_buf *out);

