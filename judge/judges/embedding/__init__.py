"""Embedding-cosine judges: what they share (:mod:`~judge.judges.embedding.cosine`), the
embedded offline ``local`` judge (:mod:`~judge.judges.embedding.local`) with its opposite-term
guard (:mod:`~judge.judges.embedding.opposites`), and ``openai-embedding``
(:mod:`~judge.judges.embedding.openai_embedding`)."""
