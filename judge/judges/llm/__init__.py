"""The LLM judge machinery: the request/parse/retry loop (:mod:`~judge.judges.llm.llmjudge`),
chat backends (:mod:`~judge.judges.llm.openai_chat`, :mod:`~judge.judges.llm.langchain_chat`,
the SDK client :mod:`~judge.judges.llm.openai_client`), scorers and reply parsing
(:mod:`~judge.judges.llm.scorer`, :mod:`~judge.judges.llm.jsonreply`,
:mod:`~judge.judges.llm.replies`, :mod:`~judge.judges.llm.grades`), the Batch API
(:mod:`~judge.judges.llm.batchapi`), several endpoints (:mod:`~judge.judges.llm.endpoints`) and
cost estimates (:mod:`~judge.judges.llm.costs`)."""
