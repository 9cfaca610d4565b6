"""Chinese, Japanese and mixed documents and natural questions for the CJK tests."""

from __future__ import annotations

import hashlib

from textsearch.embeddings import FunctionEmbedder

DOCS = [
    {
        "id": "stop-job",
        "title": "任务管理",
        "text": "要停止正在运行的任务，请在任务列表中选中它并点击停止按钮。"
        "也可以在命令行执行 jobs cancel。",
    },
    {
        "id": "backup",
        "title": "备份",
        "text": "数据库每天凌晨两点自动备份，备份文件保留三十天。需要时可以在设置页面手动备份。",
    },
    {
        "id": "pip",
        "title": "安装",
        "text": "用 pip install textsearch-sdk 安装软件包；建议先创建虚拟环境，避免依赖冲突。",
    },
    {
        "id": "password",
        "title": "パスワード",
        "text": "パスワードを忘れた場合は、ログイン画面から再設定メールを送信できます。"
        "リンクは24時間有効です。",
    },
    {
        "id": "job-ja",
        "title": "ジョブ",
        "text": "実行中のジョブを停止するには、管理画面のジョブ一覧で"
        "対象を選び「停止」ボタンを押します。",
    },
    {
        "id": "retry",
        "title": "Retry policy",
        "text": "Configure retries with exponential backoff. Crème brûlée is a dessert.",
    },
]

QUESTIONS = [
    ("如何停止任务", "stop-job"),
    ("数据库备份保留多久？", "backup"),
    ("怎么用pip安装", "pip"),
    ("用 pip install 安装", "pip"),
    ("パスワードを忘れたらどうすればいいですか", "password"),
    ("ジョブを止めるにはどうすればいいですか", "job-ja"),
    ("creme brulee", "retry"),
    ("retry backoff", "retry"),
]


def _noise(texts: list[str]) -> list[list[float]]:
    return [[b / 255 + 0.01 for b in hashlib.sha256(t.encode()).digest()[:16]] for t in texts]


NOISE = FunctionEmbedder(_noise, model="noise", dimensions=16)
