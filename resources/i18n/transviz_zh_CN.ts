<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AttentionGrid</name>
    <message>
        <source>Click a head to open it large.</source>
        <translation>点击一个头，放大查看。</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>mean of heads</source>
        <translation>各头平均</translation>
    </message>
    <message>
        <source>layer {0}</source>
        <translation>第 {0} 层</translation>
    </message>
    <message>
        <source>head {0}</source>
        <translation>头 {0}</translation>
    </message>
    <message>
        <source>layer {0}, {1}</source>
        <translation>第 {0} 层，{1}</translation>
    </message>
    <message>
        <source>layer {0}, head {1}</source>
        <translation>第 {0} 层，头 {1}</translation>
    </message>
    <message>
        <source>{0}: query &apos;{1}&apos; -&gt; key &apos;{2}&apos;: {3}</source>
        <translation>{0}：查询“{1}” → 键“{2}”：{3}</translation>
    </message>
</context>
<context>
    <name>AttentionView</name>
    <message>
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>decoder masked self-attention</source>
        <translation>解码器掩码自注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>queries: source tokens (rows)</source>
        <translation>查询：源语言词元（行）</translation>
    </message>
    <message>
        <source>keys: source tokens (columns)</source>
        <translation>键：源语言词元（列）</translation>
    </message>
    <message>
        <source>queries: decoder inputs (rows)</source>
        <translation>查询：解码器输入（行）</translation>
    </message>
    <message>
        <source>keys: decoder inputs (columns)</source>
        <translation>键：解码器输入（列）</translation>
    </message>
    <message>
        <source>mean of heads</source>
        <translation>各头平均</translation>
    </message>
    <message>
        <source>max of heads</source>
        <translation>各头最大值</translation>
    </message>
    <message>
        <source>rollout across layers</source>
        <translation>跨层注意力展开（rollout）</translation>
    </message>
    <message>
        <source>What the last column of the grid shows for each layer</source>
        <translation>网格最后一列为每一层显示的内容</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>last column</source>
        <translation>最后一列</translation>
    </message>
    <message>
        <source>Rollout follows self-attention through the layers; cross-attention&apos;s queries and keys are different sequences</source>
        <translation>注意力展开沿各层追踪自注意力；交叉注意力的查询和键来自不同的序列</translation>
    </message>
    <message>
        <source>{0}: every layer (rows) and head (columns); click one to open it large</source>
        <translation>{0}：每一层（行）和每个头（列）；点击其中一个放大查看</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>rollout</source>
        <translation>展开</translation>
    </message>
    <message>
        <source>rollout through this layer</source>
        <translation>展开到本层</translation>
    </message>
    <message>
        <source>Type a sentence above to see its attention.</source>
        <translation>在上方输入句子，查看它的注意力。</translation>
    </message>
    <message>
        <source>The decoder has not run yet: press Step (Space) to see its first query.</source>
        <translation>解码器尚未运行：按“单步”（空格）查看它的第一个查询。</translation>
    </message>
    <message>
        <source>{0}, layer {1}: {2}</source>
        <translation>{0}，第 {1} 层：{2}</translation>
    </message>
    <message>
        <source>head {0}</source>
        <translation>头 {0}</translation>
    </message>
    <message>
        <source>rollout through layers 0..{0}</source>
        <translation>第 0..{0} 层的注意力展开</translation>
    </message>
</context>
<context>
    <name>BeamTree</name>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>rank (0 = best)</source>
        <translation>排名（0 = 最佳）</translation>
    </message>
    <message>
        <source>Beam search tree: choose beam search as the strategy to see it grow.</source>
        <translation>束搜索树：把策略选为束搜索，即可看到它逐步生长。</translation>
    </message>
    <message>
        <source>Beam search, width {0}: each hypothesis kept after each step, with its last token and score (log-probability / length penalty); the best path is thick; (token): ended earlier, kept</source>
        <translation>束搜索，束宽 {0}：每一步之后保留的每个假设，标出其最后一个词元和得分（对数概率 / 长度惩罚）；粗线为最佳路径；（词元）：较早结束、被保留的假设</translation>
    </message>
</context>
<context>
    <name>CandidatesChart</name>
    <message>
        <source>Click a bar to make the model write that token instead</source>
        <translation>点击一根条形，让模型改写成这个词元</translation>
    </message>
    <message>
        <source>Next-token candidates: press Step to see what the model considers.</source>
        <translation>下一个词元的候选：按“单步”查看模型考虑了哪些词元。</translation>
    </message>
    <message>
        <source>Step {0}: the model&apos;s {1} most probable next tokens; it wrote &apos;{2}&apos; (p = {3:.3f})</source>
        <translation>第 {0} 步：模型认为最可能的 {1} 个下一词元；它写出了“{2}”（p = {3:.3f}）</translation>
    </message>
    <message>
        <source>, forced by you</source>
        <translation>，由你强制指定</translation>
    </message>
    <message>
        <source>, not among them</source>
        <translation>，不在其中</translation>
    </message>
    <message>
        <source> (in beam search: the best hypothesis extended at this step)</source>
        <translation>（束搜索中：本步扩展的最佳假设）</translation>
    </message>
    <message>
        <source>. Teacher forcing: the gold token is outlined green; the model predicted &apos;{0}&apos;</source>
        <translation>。强制教学：标准答案词元以绿框标出；模型预测的是“{0}”</translation>
    </message>
    <message>
        <source>{0}.</source>
        <translation>{0}。</translation>
    </message>
</context>
<context>
    <name>CoreMessages</name>
    <message>
        <source>the reference has ended: go back or reset to look at it again</source>
        <translation>参考译文已结束：后退或重置即可再看一遍</translation>
    </message>
    <message>
        <source>the translation has ended with the end token {0}: go back or reset to try another way</source>
        <translation>译文已以结束词元 {0} 结束：后退或重置可以尝试别的写法</translation>
    </message>
    <message>
        <source>the translation reached the length limit of {0} tokens</source>
        <translation>译文已达到 {0} 个词元的长度上限</translation>
    </message>
    <message>
        <source>nothing to undo: this is the start of the translation</source>
        <translation>没有可撤销的步骤：这是译文的开头</translation>
    </message>
    <message>
        <source>the sentence is empty: type at least one word</source>
        <translation>句子为空：请至少输入一个词</translation>
    </message>
    <message>
        <source>the sentence has {0} tokens; this model reads at most {1}</source>
        <translation>句子有 {0} 个词元；这个模型最多读入 {1} 个</translation>
    </message>
    <message>
        <source>the sentence holds control characters ({0}); remove them and try again</source>
        <translation>句子含有控制字符（{0}）；请删除后重试</translation>
    </message>
    <message>
        <source>none of the words ({0}) is in this model&apos;s vocabulary: it would read only &lt;unk&gt;</source>
        <translation>这些词（{0}）都不在这个模型的词表中：模型只会读到 &lt;unk&gt;</translation>
    </message>
    <message>
        <source>the reference has {0} tokens with the end token; this model writes at most {1}</source>
        <translation>参考译文连同结束词元共有 {0} 个词元；这个模型最多写出 {1} 个</translation>
    </message>
    <message>
        <source>{0} is a special token the model never writes</source>
        <translation>{0} 是特殊词元，模型从不写出它</translation>
    </message>
</context>
<context>
    <name>DecodingControls</name>
    <message>
        <source>Step (Space)</source>
        <translation>单步（空格）</translation>
    </message>
    <message>
        <source>Back (Left)</source>
        <translation>后退（←）</translation>
    </message>
    <message>
        <source>Run to end</source>
        <translation>运行到结束</translation>
    </message>
    <message>
        <source>Reset (Home)</source>
        <translation>重置（Home）</translation>
    </message>
    <message>
        <source>Pause (P)</source>
        <translation>暂停（P）</translation>
    </message>
    <message>
        <source>Play (P)</source>
        <translation>播放（P）</translation>
    </message>
    <message>
        <source>{0} steps/s</source>
        <translation>每秒 {0} 步</translation>
    </message>
    <message>
        <source>Type a sentence to translate first.</source>
        <translation>请先输入要翻译的句子。</translation>
    </message>
    <message>
        <source>Teacher forcing feeds the reference: no strategy chooses</source>
        <translation>强制教学直接输入参考译文：不由解码策略选择</translation>
    </message>
</context>
<context>
    <name>ExplorerPanel</name>
    <message>
        <source>The translation so far; click a token to go back to it</source>
        <translation>目前的译文；点击一个词元可回到该处</translation>
    </message>
    <message>
        <source>(the translation appears here, one token per step)</source>
        <translation>（译文显示在这里，每步一个词元）</translation>
    </message>
    <message>
        <source>No model loaded: File &gt; Open a checkpoint to explore its decoding.</source>
        <translation>未加载模型：请通过“文件 &gt; 打开检查点”加载模型，探索它的解码过程。</translation>
    </message>
    <message>
        <source>click to go back to here</source>
        <translation>点击回到这里</translation>
    </message>
    <message>
        <source>the start token: {0}</source>
        <translation>起始词元：{0}</translation>
    </message>
    <message>
        <source>step {0}: p = {1:.3f}</source>
        <translation>第 {0} 步：p = {1:.3f}</translation>
    </message>
    <message>
        <source>; forced by you</source>
        <translation>；由你强制指定</translation>
    </message>
    <message>
        <source>; the model predicted &apos;{0}&apos;</source>
        <translation>；模型预测的是“{0}”</translation>
    </message>
</context>
<context>
    <name>HeatmapWidget</name>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>queries (rows)</source>
        <translation>查询（行）</translation>
    </message>
    <message>
        <source>keys (columns)</source>
        <translation>键（列）</translation>
    </message>
    <message>
        <source>{row_name} &apos;{row}&apos; -&gt; {column_name} &apos;{column}&apos;: {value}</source>
        <translation>{row_name}“{row}” → {column_name}“{column}”：{value}</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>已掩码</translation>
    </message>
    <message>
        <source>{0}inf (masked)</source>
        <translation>{0}inf（已掩码）</translation>
    </message>
    <message>
        <source>grey hatched cells: masked (-inf)</source>
        <translation>灰色斜线格：已掩码（-inf）</translation>
    </message>
    <message>
        <source>Export as PNG...</source>
        <translation>导出为 PNG…</translation>
    </message>
    <message>
        <source>Export as SVG...</source>
        <translation>导出为 SVG…</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>unsaved model</source>
        <translation>未保存的模型</translation>
    </message>
    <message>
        <source>Explorer</source>
        <translation>探索</translation>
    </message>
    <message>
        <source>Positional encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>Masks</source>
        <translation>掩码</translation>
    </message>
    <message>
        <source>Loading {0}...</source>
        <translation>正在加载 {0}…</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open checkpoint...</source>
        <translation>打开检查点(&amp;O)…</translation>
    </message>
    <message>
        <source>Shipped &amp;models</source>
        <translation>自带模型(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Save model as...</source>
        <translation>模型另存为(&amp;S)…</translation>
    </message>
    <message>
        <source>Export current plot as &amp;PNG...</source>
        <translation>将当前图导出为 &amp;PNG…</translation>
    </message>
    <message>
        <source>Export current plot as S&amp;VG...</source>
        <translation>将当前图导出为 S&amp;VG…</translation>
    </message>
    <message>
        <source>Export &amp;trace as .npz or JSON...</source>
        <translation>导出解码轨迹为 .npz 或 JSON(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>模型(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Info...</source>
        <translation>信息(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>How to read this &amp;tab</source>
        <translation>如何阅读本页(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;About transviz</source>
        <translation>关于 transviz(&amp;A)</translation>
    </message>
    <message>
        <source>(none installed)</source>
        <translation>（未安装）</translation>
    </message>
    <message>
        <source>The last model, {0}, is not there any more.</source>
        <translation>上次使用的模型 {0} 已不存在。</translation>
    </message>
    <message>
        <source>Loaded {0}</source>
        <translation>已加载 {0}</translation>
    </message>
    <message>
        <source>No model loaded: File &gt; Open</source>
        <translation>未加载模型：文件 &gt; 打开</translation>
    </message>
    <message>
        <source>transviz: no model loaded</source>
        <translation>transviz：未加载模型</translation>
    </message>
    <message>
        <source>Model: {0} ({1:,} parameters, {2} layers, {3} heads)</source>
        <translation>模型：{0}（{1:,} 个参数，{2} 层，{3} 个头）</translation>
    </message>
    <message>
        <source>transviz: {0}</source>
        <translation>transviz：{0}</translation>
    </message>
    <message>
        <source>unexpected error: {0}</source>
        <translation>意外错误：{0}</translation>
    </message>
    <message>
        <source>The current model stays loaded.</source>
        <translation>当前模型保持加载。</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>没有加载任何模型。</translation>
    </message>
    <message>
        <source>Could not open {0}.

{1}

{2}</source>
        <translation>无法打开 {0}。

{1}

{2}</translation>
    </message>
    <message>
        <source>Could not open {0}</source>
        <translation>无法打开 {0}</translation>
    </message>
    <message>
        <source>Could not open the model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
    <message>
        <source>Could not save the model</source>
        <translation>无法保存模型</translation>
    </message>
    <message>
        <source>Model info: {0}</source>
        <translation>模型信息：{0}</translation>
    </message>
    <message>
        <source>How to read: {0}</source>
        <translation>如何阅读：{0}</translation>
    </message>
    <message>
        <source>About transviz</source>
        <translation>关于 transviz</translation>
    </message>
    <message>
        <source>transviz {0}: look inside a small encoder-decoder Transformer.</source>
        <translation>transviz {0}：看看一个小型编码器-解码器 Transformer 的内部。</translation>
    </message>
    <message>
        <source>Open checkpoint</source>
        <translation>打开检查点</translation>
    </message>
    <message>
        <source>transviz checkpoints (*.safetensors)</source>
        <translation>transviz 检查点 (*.safetensors)</translation>
    </message>
    <message>
        <source>Save model as</source>
        <translation>模型另存为</translation>
    </message>
    <message>
        <source>there is no trace to export: type a sentence in the explorer first</source>
        <translation>没有可导出的解码轨迹：请先在“探索”页输入句子</translation>
    </message>
    <message>
        <source>Export trace</source>
        <translation>导出解码轨迹</translation>
    </message>
    <message>
        <source>NumPy arrays (*.npz);;JSON (*.json)</source>
        <translation>NumPy 数组 (*.npz);;JSON (*.json)</translation>
    </message>
    <message>
        <source>Could not export the trace</source>
        <translation>无法导出解码轨迹</translation>
    </message>
    <message>
        <source>Exported {0}</source>
        <translation>已导出 {0}</translation>
    </message>
    <message>
        <source>The saved window size could not be used.</source>
        <translation>保存的窗口大小无法使用。</translation>
    </message>
    <message>
        <source>The saved layout of {0} could not be used.</source>
        <translation>保存的 {0} 布局无法使用。</translation>
    </message>
</context>
<context>
    <name>MasksPanel</name>
    <message>
        <source>Sentences separated by &apos;;&apos;</source>
        <translation>用“;”分隔的句子</translation>
    </message>
    <message>
        <source>Follow the explorer</source>
        <translation>跟随“探索”页</translation>
    </message>
    <message>
        <source>Show the explorer&apos;s sentence and the target it has written so far</source>
        <translation>显示“探索”页中的句子及目前已写出的目标序列</translation>
    </message>
    <message>
        <source>Sentence</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>Other sentences in the batch (separated by ;)</source>
        <translation>批次中的其他句子（用 ; 分隔）</translation>
    </message>
    <message>
        <source>1: may attend</source>
        <translation>1：可以关注</translation>
    </message>
    <message>
        <source>0: blocked</source>
        <translation>0：被屏蔽</translation>
    </message>
    <message>
        <source>sentence</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>sentences</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>key positions</source>
        <translation>键的位置</translation>
    </message>
    <message>
        <source>Combined mask of sentence</source>
        <translation>组合掩码，句子</translation>
    </message>
    <message>
        <source>Masks on a batch (True = may attend)</source>
        <translation>一个批次上的掩码（True = 可以关注）</translation>
    </message>
    <message>
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>decoder masked self-attention</source>
        <translation>解码器掩码自注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>target so far</source>
        <translation>目前的目标序列</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>1. raw scores Q Kᵀ</source>
        <translation>1. 原始分数 Q Kᵀ</translation>
    </message>
    <message>
        <source>3. masked: -inf where blocked</source>
        <translation>3. 掩码：被屏蔽处为 -inf</translation>
    </message>
    <message>
        <source>4. softmax over keys: each row sums to 1</source>
        <translation>4. 对键做 softmax：每行之和为 1</translation>
    </message>
    <message>
        <source>V: one value vector per key</source>
        <translation>V：每个键对应一个值向量</translation>
    </message>
    <message>
        <source>5. output = weights x V</source>
        <translation>5. 输出 = 权重 × V</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>keys (rows)</source>
        <translation>键（行）</translation>
    </message>
    <message>
        <source>dimensions of d_k</source>
        <translation>d_k 的各维度</translation>
    </message>
    <message>
        <source>queries (rows)</source>
        <translation>查询（行）</translation>
    </message>
    <message>
        <source>No model loaded: File &gt; Open a checkpoint to walk through its attention.</source>
        <translation>未加载模型：请通过“文件 &gt; 打开检查点”加载模型，逐步查看它的注意力计算。</translation>
    </message>
    <message>
        <source>Walkthrough: one head, one query, step by step</source>
        <translation>逐步演示：一个头、一个查询，一步一步</translation>
    </message>
    <message>
        <source>Masks: {0}</source>
        <translation>掩码：{0}</translation>
    </message>
    <message>
        <source>Padding mask: shape {0}</source>
        <translation>填充掩码（padding mask）：形状 {0}</translation>
    </message>
    <message>
        <source>Sequence (causal) mask: shape {0}</source>
        <translation>序列（因果）掩码（sequence mask）：形状 {0}</translation>
    </message>
    <message>
        <source>Shapes are (batch, heads, queries, keys). The padding mask has one row per sentence and is the same for every head and query; the causal mask lets query t see keys 0..t, never the future; decoder self-attention uses both combined. Light cells: may attend (True); dark cells: blocked (False), whose scores become -inf before the softmax.</source>
        <translation>形状为（批次, 头, 查询, 键）。填充掩码每个句子一行，对每个头和每个查询都相同；因果掩码让查询 t 只能看到键 0..t，永远看不到未来；解码器自注意力使用二者的组合。浅色格：可以关注（True）；深色格：被屏蔽（False），其分数在 softmax 之前变为 -inf。</translation>
    </message>
    <message>
        <source>Combined: padding AND causal: shape {0}; sentence {1}</source>
        <translation>组合：填充 且 因果：形状 {0}；句子 {1}</translation>
    </message>
    <message>
        <source>Walkthrough: {0}</source>
        <translation>逐步演示：{0}</translation>
    </message>
    <message>
        <source>2. scaled by 1/sqrt(d_k) = 1/sqrt({0})</source>
        <translation>2. 乘以 1/sqrt(d_k) = 1/sqrt({0}) 缩放</translation>
    </message>
    <message>
        <source>Query &apos;{0}&apos;: softmax weights {1} (sum {2:.3f}). Blocked keys: {3}. The output row is these weights times the rows of V: this head&apos;s {4} numbers for &apos;{0}&apos;.</source>
        <translation>查询“{0}”：softmax 权重 {1}（和为 {2:.3f}）。被屏蔽的键：{3}。输出行等于这些权重乘以 V 的各行：这就是本头为“{0}”算出的 {4} 个数。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
</context>
<context>
    <name>PositionalPanel</name>
    <message>
        <source>dimensions must be whole numbers separated by commas</source>
        <translation>维度必须是用逗号分隔的整数</translation>
    </message>
    <message>
        <source>dimension {0} does not exist: d_model is {1} (dimensions 0..{2})</source>
        <translation>维度 {0} 不存在：d_model 为 {1}（维度 0..{2}）</translation>
    </message>
    <message>
        <source>the formula</source>
        <translation>公式</translation>
    </message>
    <message>
        <source>the loaded model&apos;s table</source>
        <translation>已加载模型的位置编码表</translation>
    </message>
    <message>
        <source>interleaved: sin, cos, sin, cos ... (the formula)</source>
        <translation>交错排列：sin, cos, sin, cos …（公式）</translation>
    </message>
    <message>
        <source>sin half | cos half (the seed&apos;s figure)</source>
        <translation>前半 sin | 后半 cos（教程中的图）</translation>
    </message>
    <message>
        <source>Table from</source>
        <translation>编码表来自</translation>
    </message>
    <message>
        <source>positions</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <source>layout</source>
        <translation>排列</translation>
    </message>
    <message>
        <source>curves of dimensions</source>
        <translation>曲线所示维度</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>positions (rows)</source>
        <translation>位置（行）</translation>
    </message>
    <message>
        <source>dimensions (columns)</source>
        <translation>维度（列）</translation>
    </message>
    <message>
        <source>{row_name} {row}, {column_name} {column}: {value}</source>
        <translation>{row_name} {row}，{column_name} {column}：{value}</translation>
    </message>
    <message>
        <source>Chosen dimensions across positions</source>
        <translation>所选维度随位置的变化</translation>
    </message>
    <message>
        <source>PE value</source>
        <translation>PE 值</translation>
    </message>
    <message>
        <source>Similarity PE · PEᵀ (depends only on the offset)</source>
        <translation>相似度 PE · PEᵀ（只取决于位置之差）</translation>
    </message>
    <message>
        <source>{row_name} {row} . {column_name} {column}: {value}</source>
        <translation>{row_name} {row} · {column_name} {column}：{value}</translation>
    </message>
    <message>
        <source>No model loaded: File &gt; Open</source>
        <translation>未加载模型：文件 &gt; 打开</translation>
    </message>
    <message>
        <source>the loaded model</source>
        <translation>已加载的模型</translation>
    </message>
    <message>
        <source>Positional encoding PE: {0} positions x {1} dimensions, from {2}</source>
        <translation>位置编码 PE：{0} 个位置 × {1} 个维度，来自{2}</translation>
    </message>
    <message>
        <source>Left half: sin (even dimensions); right half: cos (odd dimensions).</source>
        <translation>左半部分：sin（偶数维度）；右半部分：cos（奇数维度）。</translation>
    </message>
    <message>
        <source>Column 2i holds sin(pos / 10000^(2i/d_model)), column 2i+1 the cos of the same angle.</source>
        <translation>第 2i 列为 sin(pos / 10000^(2i/d_model))，第 2i+1 列为同一角度的 cos。</translation>
    </message>
    <message>
        <source>Curves: {0}</source>
        <translation>曲线：{0}</translation>
    </message>
    <message>
        <source>dim {0} ({1})</source>
        <translation>维度 {0}（{1}）</translation>
    </message>
</context>
<context>
    <name>SessionController</name>
    <message>
        <source>No model is loaded: File &gt; Open a checkpoint.</source>
        <translation>没有加载模型：请通过“文件 &gt; 打开检查点”加载。</translation>
    </message>
    <message>
        <source>Type a sentence to translate first.</source>
        <translation>请先输入要翻译的句子。</translation>
    </message>
    <message>
        <source>Take a step first: the candidates are those of the last step.</source>
        <translation>请先走一步：候选词元属于上一步。</translation>
    </message>
    <message>
        <source>Teacher forcing feeds the reference: turn it off to choose other words.</source>
        <translation>强制教学直接输入参考译文：关闭它才能选择其他词。</translation>
    </message>
    <message>
        <source>{0} is a special token the model never writes.</source>
        <translation>{0} 是特殊词元，模型从不写出它。</translation>
    </message>
    <message>
        <source>In beam search these candidates belong to a hypothesis that was not the best one before this step: switch to greedy to force a word here.</source>
        <translation>在束搜索中，这些候选属于本步之前并非最佳的假设：请切换到贪心搜索，才能在这里强制指定一个词。</translation>
    </message>
</context>
<context>
    <name>Settings</name>
    <message>
        <source>The setting {0} = {1!r} makes no sense here; it was ignored.</source>
        <translation>设置项 {0} = {1!r} 无效，已忽略。</translation>
    </message>
    <message>
        <source>The settings file {0} cannot be read; transviz starts with its defaults.</source>
        <translation>无法读取设置文件 {0}；transviz 以默认设置启动。</translation>
    </message>
    <message>
        <source>The settings file was damaged and has been set aside as {0}; transviz starts with its defaults.</source>
        <translation>设置文件已损坏，已另存为 {0}；transviz 以默认设置启动。</translation>
    </message>
</context>
<context>
    <name>SourceBox</name>
    <message>
        <source>Type a sentence to translate, then press Enter and Space to step</source>
        <translation>输入要翻译的句子，按回车，再按空格逐步解码</translation>
    </message>
    <message>
        <source>choose an example</source>
        <translation>选择一个例句</translation>
    </message>
    <message>
        <source>(the tokens the model reads appear here)</source>
        <translation>（模型读入的词元显示在这里）</translation>
    </message>
    <message>
        <source>Teacher forcing with the reference</source>
        <translation>使用参考译文进行强制教学</translation>
    </message>
    <message>
        <source>Feed the reference&apos;s tokens instead of the model&apos;s own choices and compare them with what the model predicts at each step</source>
        <translation>输入参考译文的词元，而不是模型自己的选择，并在每一步与模型的预测进行比较</translation>
    </message>
    <message>
        <source>the correct translation</source>
        <translation>正确的译文</translation>
    </message>
    <message>
        <source>Sentence</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>Examples</source>
        <translation>例句</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>This model&apos;s task has no built-in examples</source>
        <translation>这个模型的任务没有内置例句</translation>
    </message>
    <message>
        <source>&apos;{0}&apos; is not in this model&apos;s vocabulary: the model reads it as {1}</source>
        <translation>“{0}”不在这个模型的词表中：模型把它读作 {1}</translation>
    </message>
</context>
<context>
    <name>StrategyEditor</name>
    <message>
        <source>greedy</source>
        <translation>贪心搜索</translation>
    </message>
    <message>
        <source>sampling</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>beam search</source>
        <translation>束搜索</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>Hypotheses are ranked by log-probability / length^penalty: 0 favours short outputs, 1 ranks by the average per token</source>
        <translation>假设按 对数概率 / 长度^惩罚系数 排序：0 偏向短输出，1 按每个词元的平均值排序</translation>
    </message>
    <message>
        <source>temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>top-k</source>
        <translation>top-k</translation>
    </message>
    <message>
        <source>top-p</source>
        <translation>top-p</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>width</source>
        <translation>束宽</translation>
    </message>
    <message>
        <source>length penalty</source>
        <translation>长度惩罚</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
</context>
<context>
    <name>TabHelp</name>
    <message>
        <source>Type a sentence and press Enter, then Space (or Step) to let the model write one token at a time.

The grid shows every layer (rows of tiles) and head (columns) of the chosen attention. In each tile a row is one query: the token that is looking (the decoder&apos;s input at that step, or a source token for the encoder); a column is one key: a token it may look at. A cell&apos;s colour is how much of its attention the query gives to that key. Every row sums to 1, because the softmax turns the row&apos;s scores into shares of one whole. The outlined row is the current step&apos;s query. The last column sums up each layer&apos;s heads (their mean, max, or the rollout through the layers).

Click a head to see it large with its tokens. The bars are the model&apos;s most probable next tokens at the last step: click one to make it write that token instead. Click an earlier output token to go back to it. In the decoder&apos;s self-attention the future is masked: hatched cells.</source>
        <translation>输入一个句子并按回车，然后按空格（或“单步”），让模型每次写出一个词元。

网格显示所选注意力的每一层（一行行小图）和每个头（列）。在每个小图中，一行是一个查询：正在“看”的词元（解码器在这一步的输入，或编码器的一个源语言词元）；一列是一个键：它可以看的词元。格子的颜色表示查询把多少注意力分给了这个键。每一行之和都为 1，因为 softmax 把这一行的分数变成了一个整体中的份额。带边框的行是当前这一步的查询。最后一列汇总每一层的各个头（平均值、最大值，或跨层的注意力展开）。

点击一个头可以放大查看它和它的词元。条形图是上一步中模型认为最可能的下一个词元：点击其中一个，让模型改写成这个词元。点击较早写出的词元可以回到那里。在解码器的自注意力中，未来被掩码遮住：显示为斜线格。</translation>
    </message>
    <message>
        <source>The table is the positional encoding PE that is added to the word embeddings, so that the model knows where each token stands. Each row is a position, each column a dimension. Column 2i is sin(pos / 10000^(2i/d_model)) and column 2i+1 the cosine of the same angle: low dimensions change fast from position to position, high ones slowly, like the hands of a clock.

The &apos;sin half | cos half&apos; layout reorders the columns as in the seed&apos;s figure. The curves show a few dimensions across positions. PE·PEᵀ compares two positions: its value depends only on how far apart they are, which lets attention find relative positions.</source>
        <translation>这张表是位置编码 PE，它被加到词嵌入上，让模型知道每个词元所在的位置。每一行是一个位置，每一列是一个维度。第 2i 列为 sin(pos / 10000^(2i/d_model))，第 2i+1 列为同一角度的余弦：低维度随位置变化得快，高维度变化得慢，就像时钟的指针。

“前半 sin | 后半 cos”的排列方式按教程中的图重新排列各列。曲线显示几个维度随位置的变化。PE·PEᵀ 比较两个位置：它的值只取决于两个位置相距多远，这让注意力能够找到相对位置。</translation>
    </message>
    <message>
        <source>A mask says which key each query may attend to (True, light) and which it may not (False, dark).

The padding mask hides the &lt;pad&gt; tokens that fill the shorter sentences of a batch; the sequence (causal) mask hides the future from the decoder, so that query t sees keys 0..t only. Decoder self-attention uses both combined. Blocked scores become -inf, so after the softmax their weight is 0 and every row still sums to 1.

The walkthrough shows one head&apos;s steps for one query: the raw scores Q·Kᵀ, scaled by 1/sqrt(d_k), masked, turned into weights by the softmax, and the output: the weights times the value vectors V.</source>
        <translation>掩码规定每个查询可以关注哪些键（True，浅色），不能关注哪些键（False，深色）。

填充掩码（padding mask）遮住用来补齐批次中较短句子的 &lt;pad&gt; 词元；序列（因果）掩码（sequence mask）对解码器遮住未来，使查询 t 只能看到键 0..t。解码器自注意力使用二者的组合。被屏蔽的分数变为 -inf，所以经过 softmax 后它们的权重为 0，每一行之和仍然为 1。

逐步演示展示一个头对一个查询的各个步骤：原始分数 Q·Kᵀ，乘以 1/sqrt(d_k) 缩放，加掩码，经 softmax 变成权重，以及输出：权重乘以值向量 V。</translation>
    </message>
</context>
<context>
    <name>ViewChoices</name>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Light, high contrast (projector)</source>
        <translation>浅色高对比度（投影仪）</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>viridis (the default)</source>
        <translation>viridis（默认）</translation>
    </message>
    <message>
        <source>cividis (for red-green colour blindness)</source>
        <translation>cividis（适合红绿色盲）</translation>
    </message>
    <message>
        <source>magma</source>
        <translation>magma</translation>
    </message>
    <message>
        <source>&amp;Colormap of attention</source>
        <translation>注意力配色(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Presentation mode (full screen, large text)</source>
        <translation>演示模式（全屏、大字）(&amp;P)</translation>
    </message>
</context>
<context>
    <name>export</name>
    <message>
        <source>could not write the PNG file {0}</source>
        <translation>无法写入 PNG 文件 {0}</translation>
    </message>
    <message>
        <source>cannot export to {0}: choose a .png or .svg file name</source>
        <translation>无法导出到 {0}：请选择 .png 或 .svg 文件名</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>导出图</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
</context>
</TS>
