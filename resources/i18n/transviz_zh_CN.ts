<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="zh_CN">
<context>
    <name>AddSlideDialog</name>
    <message>
        <source>Add the current state as a slide</source>
        <translation>把当前状态添加为一张幻灯片</translation>
    </message>
    <message>
        <source>Choose...</source>
        <translation>选择……</translation>
    </message>
    <message>
        <source>optional: shown in a Chinese interface</source>
        <translation>可选：在中文界面中显示</translation>
    </message>
    <message>
        <source>for a new lesson file</source>
        <translation>用于新的课程文件</translation>
    </message>
    <message>
        <source>The window's state (model, sentence, steps, strategy, interventions, tab and view) becomes a slide at the end of the lesson file, whose own text is kept; a file that does not exist yet is made.</source>
        <translation>窗口的当前状态（模型、句子、步数、策略、干预、标签页和视图）会成为课程文件末尾的一张幻灯片，文件原有的文字保持不变；文件不存在时会新建。</translation>
    </message>
    <message>
        <source>Caption (English):</source>
        <translation>说明文字（英文）：</translation>
    </message>
    <message>
        <source>Caption (Chinese):</source>
        <translation>说明文字（中文）：</translation>
    </message>
    <message>
        <source>Lesson file:</source>
        <translation>课程文件：</translation>
    </message>
    <message>
        <source>Title of a new lesson:</source>
        <translation>新课程的标题：</translation>
    </message>
    <message>
        <source>Lesson file to add the slide to</source>
        <translation>要添加幻灯片的课程文件</translation>
    </message>
    <message>
        <source>lessons (*.toml)</source>
        <translation>课程 (*.toml)</translation>
    </message>
</context>
<context>
    <name>AdditiveView</name>
    <message>
        <source>Additive vs dot-product attention</source>
        <translation>加性注意力与点积注意力</translation>
    </message>
    <message>
        <source>What is the difference between additive attention and dot-product (multiplicative) attention? Additive and dot-product attention have the same computational complexity, but dot-product attention can use highly optimised parallel matrix multiplication code, so it is faster and saves space.</source>
        <translation>additive attention、dot-product (multiplicative) attention 的区别？加型注意力机制和点乘注意力机制有着相同的计算复杂度，但点乘注意力机制运算可以使用高度优化的并行矩阵乘法代码，会更快也更节省空间</translation>
    </message>
    <message>
        <source>Dot product: layer {0}, head {1}</source>
        <translation>点积：第 {0} 层，第 {1} 个头</translation>
    </message>
    <message>
        <source>random (untrained)</source>
        <translation>随机（未训练）</translation>
    </message>
    <message>
        <source>fitted to the head's scores</source>
        <translation>拟合到这个头的分数</translation>
    </message>
    <message>
        <source>W1, W2, v:</source>
        <translation>W1、W2、v：</translation>
    </message>
    <message>
        <source>Left: the head's own weights, softmax(q.k / sqrt(d_k)). Right: additive attention, softmax(v^T tanh(W1 q + W2 k)) on the same queries and keys, with W1, W2 and v fitted by least squares to the head's scores (up to a constant per row, which the softmax ignores) or random. Below: the time and the memory to score n queries against n keys.</source>
        <translation>左：这个头自己的权重，softmax(q.k / sqrt(d_k))。右：加性注意力，softmax(v^T tanh(W1 q + W2 k))，用的是同样的查询和键；W1、W2 和 v 或者用最小二乘拟合到这个头的分数（每行可差一个常数，softmax 不受其影响），或者随机。下方：为 n 个查询和 n 个键打分所需的时间和内存。</translation>
    </message>
    <message>
        <source>This fit proves nothing: {0} scores to match and {1} hidden units, so v alone matches any scores exactly, by construction.</source>
        <translation>这次拟合什么也证明不了：要匹配的分数只有 {0} 个，隐藏单元却有 {1} 个，所以单靠 v 就能精确匹配任何分数，这是构造使然。</translation>
    </message>
    <message>
        <source>This fit proves little: {0} scores to match against {1} parameters in W1, W2 and v. With at least as many parameters as points, random scores are matched as closely, so a close fit says little about this head.</source>
        <translation>这次拟合说明不了多少：要匹配 {0} 个分数，W1、W2 和 v 却有 {1} 个参数。参数不少于数据点时，随机的分数也能拟合得同样接近，所以拟合得好并不能说明这个头什么。</translation>
    </message>
    <message>
        <source>{0} scores to match against {1} parameters in W1, W2 and v: more points than parameters, so a close fit shows that additive scores can reproduce this head.</source>
        <translation>要匹配 {0} 个分数，W1、W2 和 v 共有 {1} 个参数：数据点多于参数，所以拟合得好说明加性打分能够再现这个头。</translation>
    </message>
    <message>
        <source>Additive, random W1, W2 and v (untrained)</source>
        <translation>加性，随机的 W1、W2 和 v（未训练）</translation>
    </message>
    <message>
        <source>Untrained, the scores miss the head's by {0:.2f} of their spread (RMS, rows centred) and a weight by up to {1:.2f}: only a fit makes them alike.</source>
        <translation>未经训练时，这些分数与这个头的分数相差其离散程度的 {0:.2f} 倍（均方根，各行先去均值），单个权重最多相差 {1:.2f}：只有拟合之后两者才相像。</translation>
    </message>
    <message>
        <source>The fit misses the head's scores by {0:.1e} of their spread (RMS, rows centred); no weight differs by more than {1:.1e}.</source>
        <translation>拟合结果与这个头的分数相差其离散程度的 {0:.1e} 倍（均方根，各行先去均值）；任何权重的差都不超过 {1:.1e}。</translation>
    </message>
    <message>
        <source>Additive, fitted: {0} Levenberg-Marquardt iterations, {1:.2f} s</source>
        <translation>加性，拟合所得：Levenberg-Marquardt 迭代 {0} 次，{1:.2f} 秒</translation>
    </message>
    <message>
        <source>Additive, fitted: {0} scores, {1} hidden units, so v alone fits them ({2:.2f} s)</source>
        <translation>加性，拟合所得：{0} 个分数、{1} 个隐藏单元，只解出 v 就能拟合（{2:.2f} 秒）</translation>
    </message>
    <message>
        <source>Both ways cost the same order of arithmetic, n x n x {0}: at {1} tokens {2:.1f} million operations for the dot product, {3:.1f} million for the additive scores. All at once, as an n x n x {0} tensor, the additive scores took {4:.0f} times the dot product's time and {5:.0f} times its memory; {6} query rows at a time, {7:.0f} times its time and {8:.1f} times its memory. What is left is a matrix product's optimised code against tanh element by element, not the complexity.</source>
        <translation>两种方式的运算量同一量级，都是 n x n x {0}：在 {1} 个词元时，点积需要 {2:.1f} 百万次运算，加性打分需要 {3:.1f} 百万次。一次算完、构造 n x n x {0} 的张量时，加性打分用时是点积的 {4:.0f} 倍，内存是 {5:.0f} 倍；每次算 {6} 行查询时，用时是点积的 {7:.0f} 倍，内存是 {8:.1f} 倍。剩下的差距来自高度优化的矩阵乘法代码与逐个元素计算 tanh 的不同，而不是计算复杂度。</translation>
    </message>
    <message>
        <source>additive, all at once</source>
        <translation>加性，一次算完</translation>
    </message>
    <message>
        <source>additive, {0} rows at a time</source>
        <translation>加性，每次 {0} 行</translation>
    </message>
    <message>
        <source>dot product</source>
        <translation>点积</translation>
    </message>
    <message>
        <source>Time to score (one CPU thread)</source>
        <translation>打分用时（单个 CPU 线程）</translation>
    </message>
    <message>
        <source>log10 MiB</source>
        <translation>log10 MiB</translation>
    </message>
    <message>
        <source>Memory of the largest tensor (float32)</source>
        <translation>最大张量的内存（float32）</translation>
    </message>
    <message>
        <source>tokens (n queries x n keys)</source>
        <translation>词元数（n 个查询 x n 个键）</translation>
    </message>
    <message>
        <source>log10 milliseconds</source>
        <translation>log10 毫秒</translation>
    </message>
</context>
<context>
    <name>AlignmentView</name>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>decoder layers (rows)</source>
        <translation>解码器各层（行）</translation>
    </message>
    <message>
        <source>cross-attention heads, then the layer's mean (columns)</source>
        <translation>交叉注意力头，最后是该层的平均（列）</translation>
    </message>
    <message>
        <source>{row_name} {row}, {column_name} {column}: {value} of the steps</source>
        <translation>{row_name} {row}，{column_name} {column}：占各步的 {value}</translation>
    </message>
    <message>
        <source>target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>source</source>
        <translation>源</translation>
    </message>
    <message>
        <source>target words (rows)</source>
        <translation>目标词（行）</translation>
    </message>
    <message>
        <source>source words (columns)</source>
        <translation>源词（列）</translation>
    </message>
    <message>
        <source>'{row}' and '{column}': {value}</source>
        <translation>“{row}”与“{column}”：{value}</translation>
    </message>
    <message>
        <source>the head's choice, a gold link</source>
        <translation>这个头的选择，是标准链接</translation>
    </message>
    <message>
        <source>a gold link the head did not choose</source>
        <translation>这个头没有选中的标准链接</translation>
    </message>
    <message>
        <source>the head's choice, not a gold link</source>
        <translation>这个头的选择，不是标准链接</translation>
    </message>
    <message>
        <source>neither</source>
        <translation>都不是</translation>
    </message>
    <message>
        <source>Heads that align words</source>
        <translation>对齐词语的头</translation>
    </message>
    <message>
        <source>Cross-attention is often read as a word alignment: at each target step, the strongest source word should be the one being translated. The toy tasks know which source word each target word comes from, so every head can be scored: how often its strongest source word is a gold-aligned one, and the alignment error rate (AER) of those choices.</source>
        <translation>交叉注意力常被当作词对齐来读：在目标的每一步，权重最大的源词应当就是正在翻译的那个词。玩具任务知道每个目标词来自哪个源词，所以可以给每个头打分：它权重最大的源词有多大比例是标准对齐的词，以及这些选择的对齐错误率（AER）。</translation>
    </message>
    <message>
        <source>Each cross-attention head's share of target steps whose strongest source word is a gold link, over the test split, and the best head's alignment of one sentence.</source>
        <translation>在测试集上，每个交叉注意力头有多大比例的目标步，其权重最大的源词是标准链接；以及最好的头对一个句子的对齐。</translation>
    </message>
    <message>
        <source>Over {0} test sentences ({1} aligned target words) the best head is layer {2} head {3}: {4:.1%} of its choices are gold links, AER {5:.3f} (a perfect head's: {6:.3f}). The last column is each layer's mean of heads.</source>
        <translation>在 {0} 个测试句子（{1} 个有对齐的目标词）上，最好的头是第 {2} 层头 {3}：它的选择中 {4:.1%} 是标准链接，AER 为 {5:.3f}（完美的头为 {6:.3f}）。最后一列是每层各头的平均。</translation>
    </message>
    <message>
        <source>Scoring every cross-attention head on the task's test sentences, off the window's thread: the scores appear when done.</source>
        <translation>正在窗口线程之外，用任务的测试句给每个交叉注意力头打分：完成后分数就会出现。</translation>
    </message>
    <message>
        <source>Test sentence {0} of {1}</source>
        <translation>测试句 {0} / {1}</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Share of target steps whose strongest source word is a gold link</source>
        <translation>权重最大的源词是标准链接的目标步所占比例</translation>
    </message>
    <message>
        <source>Layer {0} head {1} on a test sentence: dark red, its choice and gold; pink, gold it missed; blue, its choice, not gold</source>
        <translation>第 {0} 层头 {1} 在一个测试句子上：深红，它的选择且是标准链接；粉色，它漏掉的标准链接；蓝色，它的选择但不是标准链接</translation>
    </message>
    <message>
        <source>{0} of its {1} choices in this sentence are gold links.</source>
        <translation>在这个句子里，它的 {1} 个选择中有 {0} 个是标准链接。</translation>
    </message>
</context>
<context>
    <name>AnimationExport</name>
    <message>
        <source>Step 0 of {0}: before the first token</source>
        <translation>第 0 步，共 {0} 步：第一个词元之前</translation>
    </message>
    <message>
        <source>Step {0} of {1}: wrote '{2}'</source>
        <translation>第 {0} 步，共 {1} 步：写出“{2}”</translation>
    </message>
    <message>
        <source>there is no run to animate: type a sentence first</source>
        <translation>没有可做成动画的解码过程：请先输入一个句子</translation>
    </message>
    <message>
        <source>Nothing to animate</source>
        <translation>没有可做成动画的内容</translation>
    </message>
    <message>
        <source>Type a sentence first: an animation shows its decoding, a frame per step.</source>
        <translation>请先输入一个句子：动画逐步展示它的解码过程，每一步一帧。</translation>
    </message>
    <message>
        <source>Export animation</source>
        <translation>导出动画</translation>
    </message>
    <message>
        <source>GIF animation (*.gif);;MP4 video (*.mp4)</source>
        <translation>GIF 动画 (*.gif);;MP4 视频 (*.mp4)</translation>
    </message>
    <message>
        <source>Taking a picture of every step...</source>
        <translation>正在为每一步截图……</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Could not export the animation</source>
        <translation>无法导出动画</translation>
    </message>
    <message>
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
</context>
<context>
    <name>AnimationOptions</name>
    <message>
        <source>Export animation</source>
        <translation>导出动画</translation>
    </message>
    <message>
        <source>the whole window</source>
        <translation>整个窗口</translation>
    </message>
    <message>
        <source>From the first step to this one ({0})</source>
        <translation>从第一步到这一步（{0}）</translation>
    </message>
    <message>
        <source>From the first step to the end</source>
        <translation>从第一步到解码结束</translation>
    </message>
    <message>
        <source>Picture:</source>
        <translation>画面：</translation>
    </message>
    <message>
        <source>Steps:</source>
        <translation>步数：</translation>
    </message>
    <message>
        <source>Each step shows for:</source>
        <translation>每一步显示：</translation>
    </message>
    <message>
        <source>The last step stays for another:</source>
        <translation>最后一步再停留：</translation>
    </message>
</context>
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
        <source>{0}: query '{1}' -&gt; key '{2}': {3}</source>
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
        <source>decoder-only: the source's rows of its one self-attention map</source>
        <translation>仅解码器：其唯一自注意力图中源句的行</translation>
    </message>
    <message>
        <source>decoder-only: the output rows of one map, over the source and the output; a row's two parts sum to 1 together</source>
        <translation>仅解码器：同一张图中输出的行，覆盖源句和输出；一行的两部分合起来和为 1</translation>
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
        <source>queries: decoder input -&gt; token written (rows)</source>
        <translation>查询：解码器输入 -&gt; 写出的词元（行）</translation>
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
        <translation>跨层注意力展开</translation>
    </message>
    <message>
        <source>The average of the layer's heads: each row still sums to 1</source>
        <translation>该层各头的平均：每行之和仍为 1</translation>
    </message>
    <message>
        <source>Each cell's strongest head: rows no longer sum to 1, so a row can hold several bright cells</source>
        <translation>每个格取最强的头：各行之和不再为 1，因此一行中可以有多个亮格</translation>
    </message>
    <message>
        <source>Attention rollout (Abnar &amp; Zuidema): attention followed through the layers below, with half of each layer passed on by the residual connection. For cross-attention it follows the decoder's self-attention and cross-attention into the encoder's rollout: how much each source token reaches the query. Rows sum to 1</source>
        <translation>注意力展开（Abnar 与 Zuidema）：沿下面各层追踪注意力，每层有一半经残差连接直接传递。对交叉注意力，它沿解码器的自注意力和交叉注意力追踪到编码器的展开：每个源词元有多少到达该查询。每行之和为 1</translation>
    </message>
    <message>
        <source>What the last column of the grid shows for each layer</source>
        <translation>网格最后一列为每一层显示的内容</translation>
    </message>
    <message>
        <source>0..1</source>
        <translation>0..1</translation>
    </message>
    <message>
        <source>per map</source>
        <translation>按每张图</translation>
    </message>
    <message>
        <source>per row</source>
        <translation>按每一行</translation>
    </message>
    <message>
        <source>One scale for every map: weight 0 to 1</source>
        <translation>所有图用同一刻度：权重 0 到 1</translation>
    </message>
    <message>
        <source>Each map's largest weight is the brightest colour: diffuse maps show their pattern</source>
        <translation>每张图的最大权重为最亮的颜色：分散的图也能显出模式</translation>
    </message>
    <message>
        <source>Each row's largest weight is the brightest colour: where each query looks most</source>
        <translation>每行的最大权重为最亮的颜色：每个查询最关注哪里</translation>
    </message>
    <message>
        <source>How weights map to colours</source>
        <translation>权重如何对应颜色</translation>
    </message>
    <message>
        <source>alignment lines</source>
        <translation>对齐连线</translation>
    </message>
    <message>
        <source>Draw the current step's cross-attention as lines from the token written to the source tokens: the head shown large, or the mean of its layer's heads</source>
        <translation>把当前步的交叉注意力画成从写出的词元到各源词元的连线：用放大显示的头，或其所在层各头的平均</translation>
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
        <source>colours</source>
        <translation>颜色</translation>
    </message>
    <message>
        <source>This sentence cannot be shown: {0}.</source>
        <translation>无法显示这个句子：{0}。</translation>
    </message>
    <message>
        <source> Colours: each map scaled to its largest weight.</source>
        <translation> 颜色：每张图按其最大权重缩放。</translation>
    </message>
    <message>
        <source> Colours: each row scaled to its largest weight.</source>
        <translation> 颜色：每一行按其最大权重缩放。</translation>
    </message>
    <message>
        <source>Before the first step: the encoder self-attention the decoder will read, every layer (rows) and head (columns).{0}</source>
        <translation>第一步之前：解码器将要读取的编码器自注意力，每一层（行）和每个头（列）。{0}</translation>
    </message>
    <message>
        <source>{0}: every layer (rows) and head (columns).{1}</source>
        <translation>{0}：每一层（行）和每个头（列）。{1}</translation>
    </message>
    <message>
        <source>The decoder has not run yet: press Step (Space) to see its {0}. Meanwhile, the encoder self-attention it will read: every layer (rows) and head (columns).{1}</source>
        <translation>解码器尚未运行：按“单步（空格）”查看其{0}。此处先显示它将读取的编码器自注意力：每一层（行）和每个头（列）。{1}</translation>
    </message>
    <message>
        <source>{0}: every layer (rows) and head (columns); click one to open it large.{1}</source>
        <translation>{0}：每一层（行）和每个头（列）；点击其一可放大查看。{1}</translation>
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
        <source>Paint a row of one head: a summary of heads has no weights of its own to set.</source>
        <translation>请在单个头上绘制一行：多个头的汇总没有可设置的权重。</translation>
    </message>
    <message>
        <source>This query may not see the keys painted: paint keys left of the hatched cells.</source>
        <translation>这个查询看不到所绘制的键：请绘制灰色斜线格子左边的键。</translation>
    </message>
    <message>
        <source>{0}, layer {1}: {2}</source>
        <translation>{0}，第 {1} 层：{2}</translation>
    </message>
    <message>
        <source>{0} ({1})</source>
        <translation>{0}（{1}）</translation>
    </message>
    <message>
        <source>{0} (edited: {1})</source>
        <translation>{0}（已修改：{1}）</translation>
    </message>
    <message>
        <source>max of heads, 0..1: rows do not sum to 1</source>
        <translation>各头最大值，0..1：各行之和不为 1</translation>
    </message>
    <message>
        <source>max of heads / map's largest: rows do not sum to 1</source>
        <translation>各头最大值 / 图中最大值：各行之和不为 1</translation>
    </message>
    <message>
        <source>max of heads / row's largest: rows do not sum to 1</source>
        <translation>各头最大值 / 行中最大值：各行之和不为 1</translation>
    </message>
    <message>
        <source>weight, 0..1</source>
        <translation>权重，0..1</translation>
    </message>
    <message>
        <source>weight / map's largest</source>
        <translation>权重 / 图中最大值</translation>
    </message>
    <message>
        <source>weight / row's largest</source>
        <translation>权重 / 行中最大值</translation>
    </message>
    <message>
        <source>head {0}</source>
        <translation>头 {0}</translation>
    </message>
    <message>
        <source>rollout through decoder layers 0..{0} and the encoder</source>
        <translation>经解码器第 0..{0} 层及编码器的展开</translation>
    </message>
    <message>
        <source>rollout through layers 0..{0}</source>
        <translation>第 0..{0} 层的注意力展开</translation>
    </message>
</context>
<context>
    <name>AttributionView</name>
    <message>
        <source>output token</source>
        <translation>输出词元</translation>
    </message>
    <message>
        <source>source token</source>
        <translation>源词元</translation>
    </message>
    <message>
        <source>output tokens (rows)</source>
        <translation>输出词元（行）</translation>
    </message>
    <message>
        <source>source tokens (columns)</source>
        <translation>源词元（列）</translation>
    </message>
    <message>
        <source>{row_name} '{row}', {column_name} '{column}': {value}</source>
        <translation>{row_name}“{row}”，{column_name}“{column}”：{value}</translation>
    </message>
    <message>
        <source>zero embedding</source>
        <translation>零向量嵌入</translation>
    </message>
    <message>
        <source>padding token's embedding</source>
        <translation>填充词元的嵌入</translation>
    </message>
    <message>
        <source>Baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>Attribution beside attention</source>
        <translation>归因与注意力对照</translation>
    </message>
    <message>
        <source>(No passage of the tutorials is about attribution; the nearest is their first reading of attention.) The most common explanation of attention is Q, K, V, query, key and value: it can be understood as taking information out of a KV store, that is, taking things from a dictionary. This explanation is vivid, but not entirely rigorous.</source>
        <translation>（教程中没有讲归因的段落；最接近的是对 attention 的第一种理解。）attention最常见的解释是Q,K,V，即query, key, value, 可以理解为从KV store结构中取出信息的过程。也就是从一个字典里面拿东西，这种解释非常形象，但不完全严谨</translation>
    </message>
    <message>
        <source>One row per output token written so far. Left: integrated gradients of its log-probability over the source token embeddings ({0} steps from the baseline chosen below; red raised the token, blue lowered it). Middle: the mean of the heads of the chosen decoder layer's cross-attention. Right: the explorer's rollout through the decoder (each layer's head means with their residual paths, down to the source tokens). Attention is where the heads read; attribution is what changed the output: where the rows differ, the weights alone mislead.</source>
        <translation>每个已写出的输出词元占一行。左：该词元对数概率对源词元嵌入的积分梯度（从下方所选基线出发，{0} 步；红色表示提高了该词元的概率，蓝色表示降低）。中：所选解码器层交叉注意力各头的平均。右：与探索页相同的经过解码器的注意力展开（每层各头的平均连同残差通路，一直追溯到源词元）。注意力是各头读取的位置；归因是改变输出的因素：两者的行不一致时，只看注意力权重会被误导。</translation>
    </message>
    <message>
        <source>Rollout through the decoder</source>
        <translation>经过解码器的注意力展开</translation>
    </message>
    <message>
        <source>Integrated gradients: output token {0} of {1}</source>
        <translation>积分梯度：第 {0} 个输出词元，共 {1} 个</translation>
    </message>
    <message>
        <source>Integrated gradients, from the {0}</source>
        <translation>积分梯度，基线为{0}</translation>
    </message>
    <message>
        <source>change of log p</source>
        <translation>log p 的变化</translation>
    </message>
    <message>
        <source>Cross-attention, decoder layer {0}, mean of heads</source>
        <translation>交叉注意力，解码器第 {0} 层，各头平均</translation>
    </message>
    <message>
        <source>Rank correlation (Spearman) of |attribution| with attention, per output token: {0}; mean {1}. With rollout: mean {2}.</source>
        <translation>|归因| 与注意力的秩相关（Spearman），按输出词元：{0}；平均 {1}。与注意力展开：平均 {2}。</translation>
    </message>
    <message>
        <source>Completeness: each row's attributions sum to its change of log-probability from the baseline to within {0:.3f} ({1:.1%} of the largest change).</source>
        <translation>完备性：每行归因之和与该行从基线到输入的对数概率变化相差不超过 {0:.3f}（最大变化的 {1:.1%}）。</translation>
    </message>
</context>
<context>
    <name>BeamTree</name>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>rank</source>
        <translation>排名</translation>
    </message>
    <message>
        <source>Beam search, width {0}: each hypothesis kept after each step (rank 0: the best), with its last token and score = summed log-probability / length^{1:g}; the best path is thick; (token): ended earlier, kept</source>
        <translation>束搜索，宽度 {0}：每一步后保留的每个假设（排名 0：最佳），附其最后一个词元和分数 = 对数概率之和 / 长度^{1:g}；最佳路径加粗；(词元)：已提前结束并保留</translation>
    </message>
    <message>
        <source>Beam search tree: choose beam search as the strategy to see it grow.</source>
        <translation>束搜索树：把策略选为束搜索，即可看到它逐步生长。</translation>
    </message>
</context>
<context>
    <name>BilinearView</name>
    <message>
        <source>query input</source>
        <translation>查询输入</translation>
    </message>
    <message>
        <source>key input</source>
        <translation>键输入</translation>
    </message>
    <message>
        <source>query input dimension (rows; last: the bias)</source>
        <translation>查询输入的维度（行；最后一行：偏置）</translation>
    </message>
    <message>
        <source>key input dimension (columns; last: the bias)</source>
        <translation>键输入的维度（列；最后一列：偏置）</translation>
    </message>
    <message>
        <source>{row_name} {row}, {column_name} {column}: {value}</source>
        <translation>{row_name} {row}，{column_name} {column}：{value}</translation>
    </message>
    <message>
        <source>W_Z</source>
        <translation>W_Z</translation>
    </message>
    <message>
        <source>its symmetric part S = (W_Z + W_Z^T) / 2</source>
        <translation>对称部分 S = (W_Z + W_Z^T) / 2</translation>
    </message>
    <message>
        <source>its antisymmetric part A = (W_Z - W_Z^T) / 2</source>
        <translation>反对称部分 A = (W_Z - W_Z^T) / 2</translation>
    </message>
    <message>
        <source>Map:</source>
        <translation>矩阵：</translation>
    </message>
    <message>
        <source>Attention as a bilinear form</source>
        <translation>把注意力看作双线性函数</translation>
    </message>
    <message>
        <source>The second reading is a bilinear function, f(ax+b, y) = a f(x, y) + f(b, y): the attention map is a typical bilinear function, and it can equally be read as an inner-product space with W_Z as its metric. The essence of bilinearity is that it splits apart; it is widely used in work that fuses features at the attention stage, such as relative position embeddings.</source>
        <translation>第二种理解是双线性函数即 f(ax+b, y) = a·f(x, y) + f(b, y)，attention map就是一个典型的双线性函数，同样的，也可以理解为把 W_Z 作为度量的内积空间。双线性的精髓在于可拆分，很多在attention阶段融合特征，比如relative position embedding等工作中就有广泛应用。</translation>
    </message>
    <message>
        <source>W_Z = W_Q W_K^T of the chosen head, with the biases as a last row and column: [x_q, 1] W_Z [x_k, 1]^T / sqrt(d_k) is the scaled score of every query and key.</source>
        <translation>所选头的 W_Z = W_Q W_K^T，偏置作为最后一行和最后一列：[x_q, 1] W_Z [x_k, 1]^T / sqrt(d_k) 就是每个查询与键的缩放得分。</translation>
    </message>
    <message>
        <source>W_Z = W_Q W_K^T of the chosen head, with the biases as a last row and column: [x_q, 1] W_Z [x_k, 1]^T / sqrt(d_k) is the scaled score of every query and key. Its symmetric part S has {0} positive, {1} negative and {2} zero eigenvalues (orange, right). A metric needs all {3} positive: W_Z is no metric, and the score is a bilinear form, not an inner product.</source>
        <translation>所选头的 W_Z = W_Q W_K^T，偏置作为最后一行和最后一列：[x_q, 1] W_Z [x_k, 1]^T / sqrt(d_k) 就是每个查询与键的缩放得分。它的对称部分 S 有 {0} 个正特征值、{1} 个负特征值和 {2} 个零特征值（右侧橙色）。度量要求 {3} 个特征值全为正：W_Z 不是度量，得分是一个双线性形式，而不是内积。</translation>
    </message>
    <message>
        <source>Check: the form gives the model's scaled scores to within {0:.1e} ({1} x {2}).
Rank {3} of {4} (singular values above 1e-6 of the largest; at most d_k = {5}); effective rank (entropy) {6:.1f}.
Symmetric part |S| = {7:.2f}, antisymmetric part |A| = {8:.2f} (Frobenius norms): W_Z = S + A, and A is what makes the score of (x, y) differ from that of (y, x).
S is a product through d_k: at most d_k = {5} of its eigenvalues are positive and at most d_k negative (zero: below 1e-6 of the largest). Along a direction with a negative one, an input scores itself below zero, which no inner product allows.</source>
        <translation>验证：这个双线性形式给出的缩放得分与模型的相差不超过 {0:.1e}（{1} x {2}）。
秩 {3}/{4}（大于最大奇异值 1e-6 倍的奇异值个数；至多 d_k = {5}）；有效秩（熵）{6:.1f}。
对称部分 |S| = {7:.2f}，反对称部分 |A| = {8:.2f}（弗罗贝尼乌斯范数）：W_Z = S + A，正是 A 让 (x, y) 的得分不同于 (y, x) 的得分。
S 是经过 d_k 维的乘积：它至多有 d_k = {5} 个正特征值、至多 d_k 个负特征值（零：小于最大值的 1e-6 倍）。沿负特征值的方向，一个输入与自身的得分小于零，而任何内积都不允许这样。</translation>
    </message>
    <message>
        <source>entry</source>
        <translation>元素</translation>
    </message>
    <message>
        <source>value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>Singular values of W_Z (blue), eigenvalues of S (orange)</source>
        <translation>W_Z 的奇异值（蓝色），S 的特征值（橙色）</translation>
    </message>
    <message>
        <source>{3} of head {0}: {1} x {1}, through d_k = {2}</source>
        <translation>头 {0} 的 {3}：{1} x {1}，经过 d_k = {2}</translation>
    </message>
    <message>
        <source>index</source>
        <translation>序号</translation>
    </message>
</context>
<context>
    <name>CandidatesChart</name>
    <message>
        <source>Click a bar to make the model write that token instead</source>
        <translation>点击一根条形，让模型改写成这个词元</translation>
    </message>
    <message>
        <source>This model was trained with label smoothing ({0:g}): it learned to leave part of the probability to other tokens, so even a sure choice stays below 1.</source>
        <translation>这个模型训练时使用了标签平滑（{0:g}）：它学会了把一部分概率留给其他词元，所以即使很有把握的选择也低于 1。</translation>
    </message>
    <message>
        <source>Next-token candidates: press Step to see what the model considers.</source>
        <translation>下一个词元的候选：按“单步”查看模型考虑了哪些词元。</translation>
    </message>
    <message>
        <source>all others</source>
        <translation>其余全部</translation>
    </message>
    <message>
        <source>raw</source>
        <translation>原始</translation>
    </message>
    <message>
        <source>Step {0}: sampled '{1}' with p = {2:.3f} from the wide bars (after temperature, top-k, top-p); thin bars and numbers in brackets: the model's raw probabilities (raw p = {3:.3f})</source>
        <translation>第 {0} 步：从宽条（经温度、top-k、top-p 处理后的分布）中以 p = {2:.3f} 采样得到“{1}”；细条和括号中的数字：模型的原始概率（原始 p = {3:.3f}）</translation>
    </message>
    <message>
        <source>Search step {0}, after the translation shown ended ({1} tokens): an unfinished hypothesis could still beat it, so the search went on. That hypothesis's {2} most probable next tokens; it wrote '{3}' (p = {4:.3f})</source>
        <translation>搜索第 {0} 步，此时所显示的译文已经结束（{1} 个词元）：一个未结束的假设仍可能胜过它，所以搜索继续。这是该假设最可能的 {2} 个下一词元；它写出了“{3}”（p = {4:.3f}）</translation>
    </message>
    <message>
        <source>Step {0}: the model's {1} most probable next tokens; it wrote '{2}' (p = {3:.3f})</source>
        <translation>第 {0} 步：模型认为最可能的 {1} 个下一词元；它写出了“{2}”（p = {3:.3f}）</translation>
    </message>
    <message>
        <source>, forced by you</source>
        <translation>，由你强制指定</translation>
    </message>
    <message>
        <source>, the target language, which the model is told to write first</source>
        <translation>，这是目标语言，模型被要求首先写出它</translation>
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
        <source>. Teacher forcing: the gold token is outlined green; the model predicted '{0}'</source>
        <translation>。强制教学：参考词元以绿框标出；模型预测的是“{0}”</translation>
    </message>
    <message>
        <source>{0}.</source>
        <translation>{0}。</translation>
    </message>
</context>
<context>
    <name>ClassPanel</name>
    <message>
        <source>Show join code</source>
        <translation>显示加入码</translation>
    </message>
    <message>
        <source>Stop the class</source>
        <translation>结束课堂</translation>
    </message>
    <message>
        <source>How a live class works</source>
        <translation>实时课堂如何运作</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移出</translation>
    </message>
    <message>
        <source>Remove the selected student: their connection closes, their answers leave the chart and the export, and the nickname cannot join again</source>
        <translation>把所选学生移出课堂：其连接会关闭，其答案会从图表和导出中去掉，这个昵称也不能再加入</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>practice</source>
        <translation>练习</translation>
    </message>
    <message>
        <source>pre-test</source>
        <translation>课前测</translation>
    </message>
    <message>
        <source>post-test</source>
        <translation>课后测</translation>
    </message>
    <message>
        <source>How the questions asked from now on are marked in the export: practice, or a pre-test and a post-test of the same lesson</source>
        <translation>从现在起所提的问题在导出中如何标记：练习，或同一节课的课前测和课后测</translation>
    </message>
    <message>
        <source>Questions count as</source>
        <translation>问题记为</translation>
    </message>
    <message>
        <source>Reveal</source>
        <translation>揭晓答案</translation>
    </message>
    <message>
        <source>Show the right answer here and in the explorer, and tell each student whether they were right</source>
        <translation>在这里和探索页显示正确答案，并告诉每个学生是否答对</translation>
    </message>
    <message>
        <source>Each question</source>
        <translation>每个问题</translation>
    </message>
    <message>
        <source>question</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>test</source>
        <translation>测试</translation>
    </message>
    <message>
        <source>answered</source>
        <translation>已作答</translation>
    </message>
    <message>
        <source>right</source>
        <translation>答对</translation>
    </message>
    <message>
        <source>Export answers (CSV)...</source>
        <translation>导出答案（CSV）……</translation>
    </message>
    <message>
        <source>Write every answer to a CSV file (nickname, question, answer, right, time): nothing about the students is written anywhere else</source>
        <translation>把每个答案写入 CSV 文件（昵称、问题、答案、是否答对、时间）：关于学生的任何信息都不会写到别处</translation>
    </message>
    <message>
        <source>Help: a live class</source>
        <translation>帮助：实时课堂</translation>
    </message>
    <message>
        <source>Students open {0} and type the code {1}</source>
        <translation>学生打开 {0} 并输入加入码 {1}</translation>
    </message>
    <message>
        <source>{0} (away)</source>
        <translation>{0}（离开）</translation>
    </message>
    <message>
        <source>Students: {0}</source>
        <translation>学生：{0}</translation>
    </message>
    <message>
        <source>No question yet: turn on quiz mode (Q) in the explorer, or run a lesson with quiz slides; each question is asked to the class too.</source>
        <translation>还没有问题：在探索页打开测验模式（Q），或运行带测验幻灯片的课程；每个问题也会发给全班。</translation>
    </message>
    <message>
        <source>{0} of {1} answered</source>
        <translation>{1} 人中 {0} 人已作答</translation>
    </message>
    <message>
        <source>{0} ({1})</source>
        <translation>{0}（{1}）</translation>
    </message>
    <message>
        <source>after Reveal</source>
        <translation>揭晓后显示</translation>
    </message>
    <message>
        <source>{0} of {1}</source>
        <translation>{0} / {1}</translation>
    </message>
</context>
<context>
    <name>ColourLegend</name>
    <message>
        <source>current query</source>
        <translation>当前查询</translation>
    </message>
    <message>
        <source>not in the vocabulary (read as &lt;unk&gt;; on axes: word (?))</source>
        <translation>不在词表中（读作 &lt;unk&gt;；坐标轴上：词 (?)）</translation>
    </message>
    <message>
        <source>forced by you</source>
        <translation>由你强制</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>已掩码</translation>
    </message>
    <message>
        <source>gold token over the model's prediction (green: the same, red: another)</source>
        <translation>上为参考词元，下为模型的预测（绿色：相同，红色：不同）</translation>
    </message>
    <message>
        <source>bars: orange = the token fed, outlined green when gold; blue = the other candidates</source>
        <translation>条形：橙色 = 输入的词元，是参考词元时带绿色边框；蓝色 = 其他候选</translation>
    </message>
    <message>
        <source>Colour legend: yellow chip (on a plot's axis: the word followed by (?)) = a word not in the model's vocabulary; orange = the current query (the step being shown); dashed outline = a token forced by you; grey hatched cells = masked (-inf); in teacher forcing, each chip shows the gold token over the model's prediction, and the candidate bars are orange for the token fed, outlined green when it is the gold one, blue for the others; while a quiz's question is open, lavender cells with ? = hidden until you answer (not masked)</source>
        <translation>颜色图例：黄色标签（在图的坐标轴上：后面带 (?) 的词）= 不在模型词表中的词；橙色 = 当前查询（正在显示的步骤）；虚线边框 = 你强制指定的词元；灰色斜线格 = 已掩码（-inf）；强制教学时，每个标签上面是参考词元，下面是模型的预测，候选条形中输入的词元为橙色（是参考词元时带绿色边框），其他候选为蓝色；测验问题未回答时，带 ? 的淡紫色格 = 回答前隐藏（不是掩码）</translation>
    </message>
</context>
<context>
    <name>ComparePanel</name>
    <message>
        <source>Compare (Enter)</source>
        <translation>比较（Enter）</translation>
    </message>
    <message>
        <source>Attention:</source>
        <translation>注意力：</translation>
    </message>
    <message>
        <source>Layer:</source>
        <translation>层：</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>Hidden until you answer: a quiz's question is open in the Explorer, and the runs decoded to their end would give the answer away. Reveal it there (Enter) to see the comparison.</source>
        <translation>回答前隐藏：探索页中有一道测验题尚未回答，把两次运行解码到底会泄露答案。在那里揭晓答案（Enter）后即可看到比较。</translation>
    </message>
    <message>
        <source>Attention maps</source>
        <translation>注意力图</translation>
    </message>
    <message>
        <source>Activation patching</source>
        <translation>激活修补</translation>
    </message>
    <message>
        <source>Open a model first.</source>
        <translation>请先打开一个模型。</translation>
    </message>
    <message>
        <source>Patching runs two sentences through one model: a training snapshot is a recorded run, not a model to run again.</source>
        <translation>修补要让两个句子通过同一个模型：训练快照只是记录下来的一次运行，不是可以再运行的模型。</translation>
    </message>
    <message>
        <source>Patching runs two sentences through one model: choose the same model for A and B.</source>
        <translation>修补要让两个句子通过同一个模型：请为 A 和 B 选择同一个模型。</translation>
    </message>
    <message>
        <source>B - A, named as A (blue: A larger, red: B larger; scale ±{0:.3f})</source>
        <translation>B - A，行列按 A 命名（蓝：A 更大，红：B 更大；色标 ±{0:.3f}）</translation>
    </message>
    <message>
        <source>No difference map: A's map is {0} x {1}, B's is {2} x {3}. The runs differ in length; the maps are compared only where their shapes match.</source>
        <translation>没有差异图：A 的图是 {0} x {1}，B 的是 {2} x {3}。两次解码的长度不同；只有形状相同时才比较两张图。</translation>
    </message>
    <message>
        <source>The two outputs are the same.</source>
        <translation>两个输出相同。</translation>
    </message>
    <message>
        <source>Output of A turned into B's: struck out in red, A only; underlined in green, B only.</source>
        <translation>从 A 的输出变为 B 的输出：红色删除线为仅 A 有，绿色下划线为仅 B 有。</translation>
    </message>
</context>
<context>
    <name>ConceptView</name>
    <message>
        <source>Hidden until you answer: a quiz's question is open in the Explorer. Reveal the answer there (Enter) to see this picture of the current step.</source>
        <translation>回答前隐藏：探索页中有一道测验题尚未回答。在那里揭晓答案（Enter）后即可看到当前步骤的这幅图。</translation>
    </message>
    <message>
        <source>{0} {1}</source>
        <translation>{0}{1}</translation>
    </message>
</context>
<context>
    <name>ConceptsPanel</name>
    <message>
        <source>head</source>
        <translation>头</translation>
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
        <source>The tutorial says: {0}</source>
        <translation>教程中说：{0}</translation>
    </message>
    <message>
        <source>Beyond the tutorials: {0}</source>
        <translation>教程之外：{0}</translation>
    </message>
    <message>
        <source>Type a sentence in the Explorer tab to see it here.</source>
        <translation>请在探索页输入一个句子，在这里查看。</translation>
    </message>
</context>
<context>
    <name>CoreMessages</name>
    <message>
        <source>teacher forcing feeds the reference: strategies apply when decoding freely</source>
        <translation>强制教学直接输入参考译文：解码策略只在自由解码时起作用</translation>
    </message>
    <message>
        <source>{0} must be a whole number &gt;= 1, got {1}</source>
        <translation>{0} 必须是 &gt;= 1 的整数，而不是 {1}</translation>
    </message>
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
        <source>a vocabulary holds at most {0} tokens besides the special tokens, this one {1}</source>
        <translation>词表除特殊词元外最多容纳 {0} 个词元，这个词表有 {1} 个</translation>
    </message>
    <message>
        <source>level must be 'word' or 'char', got {0}</source>
        <translation>level 必须是 'word' 或 'char'，实际是 {0}</translation>
    </message>
    <message>
        <source>expected text, got {0}</source>
        <translation>需要文本，而不是 {0}</translation>
    </message>
    <message>
        <source>the tokenizer reads {0} words in '{1}', which has {2}: its pieces cannot be matched to the words alignments count</source>
        <translation>分词器在“{1}”中读出 {0} 个词，而它有 {2} 个：它的子词无法对应到对齐文件所数的词</translation>
    </message>
    <message>
        <source>the sentence is empty: type at least one word</source>
        <translation>句子为空：请至少输入一个词</translation>
    </message>
    <message>
        <source>{0} is not in this model's vocabulary</source>
        <translation>{0} 不在这个模型的词表中</translation>
    </message>
    <message>
        <source>the training sentences hold more than {0} different tokens, the most a vocabulary holds; train on fewer sentences or at character level</source>
        <translation>训练句子中有超过 {0} 个不同的词元，超出了词表的最大容量；请用更少的句子训练，或改用字符级</translation>
    </message>
    <message>
        <source>a vocabulary must be a JSON object, got {0}</source>
        <translation>词表必须是一个 JSON 对象，实际是 {0}</translation>
    </message>
    <message>
        <source>a vocabulary's tokens must be a list, got {0}</source>
        <translation>词表的词元必须是一个列表，实际是 {0}</translation>
    </message>
    <message>
        <source>lowercase must be true or false, got {0}</source>
        <translation>lowercase 必须是 true 或 false，实际是 {0}</translation>
    </message>
    <message>
        <source>a vocabulary must start with the special tokens {0}</source>
        <translation>词表必须以特殊词元 {0} 开头</translation>
    </message>
    <message>
        <source>token {0} of a vocabulary is {1}, not text</source>
        <translation>词表的第 {0} 个词元是 {1}，不是文本</translation>
    </message>
    <message>
        <source>token {0} of a vocabulary is empty</source>
        <translation>词表的第 {0} 个词元为空</translation>
    </message>
    <message>
        <source>token {0} of a vocabulary holds {1}, a control character or half a surrogate pair</source>
        <translation>词表的第 {0} 个词元含有 {1}，这是控制字符或半个代理对</translation>
    </message>
    <message>
        <source>a vocabulary lists the token {0} twice</source>
        <translation>词表两次列出了词元 {0}</translation>
    </message>
    <message>
        <source>the prompt {0} is {1} token: this model continues a prompt from its last token and needs at least one more before it</source>
        <translation>提示 {0} 只有 {1} 个词元：这个模型从提示的最后一个词元接着往下写，在它之前至少还需要一个词元</translation>
    </message>
    <message>
        <source>the sentence has {0} tokens; this model reads at most {1}</source>
        <translation>句子有 {0} 个词元；这个模型最多读入 {1} 个</translation>
    </message>
    <message>
        <source>the vocabularies hold {0} and {1} tokens; the model's config says {2} and {3}</source>
        <translation>词表分别有 {0} 和 {1} 个词元；模型配置写的是 {2} 和 {3}</translation>
    </message>
    <message>
        <source>pad_id is {0}, but the vocabularies pad with id {1} ({2})</source>
        <translation>pad_id 为 {0}，但词表的填充编号是 {1}（{2}）</translation>
    </message>
    <message>
        <source>the sentence holds control characters ({0}); remove them and try again</source>
        <translation>句子含有控制字符（{0}）；请删除后重试</translation>
    </message>
    <message>
        <source>none of the words ({0}) is in this model's vocabulary: it would read only &lt;unk&gt;</source>
        <translation>这些词（{0}）都不在这个模型的词表中：模型只会读到 &lt;unk&gt;</translation>
    </message>
    <message>
        <source>beam search has ended as Hugging Face's generate() ends it: {0} hypotheses have ended (early_stopping={1})</source>
        <translation>束搜索已按 Hugging Face 的 generate() 的方式结束：已有 {0} 个假设结束（early_stopping={1}）</translation>
    </message>
    <message>
        <source>beam search has ended: the best hypothesis ended with {0} and no unfinished one can beat its score any more</source>
        <translation>束搜索已结束：最佳假设以 {0} 结束，且没有未结束的假设还能超过它的分数</translation>
    </message>
    <message>
        <source>there is no hypothesis {0}: the beam holds {1}</source>
        <translation>没有假设 {0}：束中只有 {1} 个假设</translation>
    </message>
    <message>
        <source>teacher forcing feeds the reference: forcing a word works when decoding freely</source>
        <translation>强制教学直接输入参考译文：只有在自由解码时才能强制指定词</translation>
    </message>
    <message>
        <source>the best hypothesis has already ended: go back a step to force another word</source>
        <translation>最佳假设已经结束：后退一步即可强制指定另一个词</translation>
    </message>
    <message>
        <source>can only rewind to a position from 0 to {0}, got {1}</source>
        <translation>只能回退到 0 到 {0} 之间的位置，而不是 {1}</translation>
    </message>
    <message>
        <source>the reference has {0} tokens with the end token; this model writes at most {1}</source>
        <translation>参考译文连同结束词元共有 {0} 个词元；这个模型最多写出 {1} 个</translation>
    </message>
    <message>
        <source>expected a word to force, got {0}</source>
        <translation>需要一个要强制指定的词，而不是 {0}</translation>
    </message>
    <message>
        <source>type the word to force</source>
        <translation>请输入要强制指定的词</translation>
    </message>
    <message>
        <source>force one word at a time, not {0}</source>
        <translation>一次只能强制指定一个词，而不是 {0}</translation>
    </message>
    <message>
        <source>{0} is a special token the model never writes</source>
        <translation>{0} 是特殊词元，模型从不写出它</translation>
    </message>
    <message>
        <source>the reference is empty: type the target sentence to feed, or leave teacher forcing off</source>
        <translation>参考译文是空的：请输入要喂给解码器的目标句，或者关闭强制教学</translation>
    </message>
    <message>
        <source>{0} must be a positive integer, got {1}</source>
        <translation>{0} 必须是正整数，而不是 {1}</translation>
    </message>
    <message>
        <source>{0} must be at least 1, got {1}</source>
        <translation>{0} 至少为 1，而不是 {1}</translation>
    </message>
    <message>
        <source>{0} must be a whole number &gt;= 0, got {1}</source>
        <translation>{0} 必须是 &gt;= 0 的整数，而不是 {1}</translation>
    </message>
    <message>
        <source>{0} must be positive, got {1}</source>
        <translation>{0} 必须为正数，而不是 {1}</translation>
    </message>
    <message>
        <source>{0} must be in [0, 1), got {1}</source>
        <translation>{0} 必须在 [0, 1) 之内，而不是 {1}</translation>
    </message>
    <message>
        <source>{0} must be '{1}' or '{2}', got {3}</source>
        <translation>{0} 必须是 '{1}' 或 '{2}'，而不是 {3}</translation>
    </message>
    <message>
        <source>{0} must be at most {1}, got {2}</source>
        <translation>{0} 最大为 {1}，实际为 {2}</translation>
    </message>
    <message>
        <source>{0} must be a number, got {1}</source>
        <translation>{0} 必须是一个数，实际为 {1}</translation>
    </message>
    <message>
        <source>{0} must be true or false, got {1}</source>
        <translation>{0} 必须是 true 或 false，实际为 {1}</translation>
    </message>
    <message>
        <source>{0} must be text, got {1}</source>
        <translation>{0} 必须是文本，实际为 {1}</translation>
    </message>
    <message>
        <source>{0} must be above 1, got {1}</source>
        <translation>{0} 必须大于 1，得到的是 {1}</translation>
    </message>
    <message>
        <source>d_model ({0}) must be divisible by n_heads ({1}): each head gets d_model / n_heads dimensions</source>
        <translation>d_model（{0}）必须能被 n_heads（{1}）整除：每个头分到 d_model / n_heads 维</translation>
    </message>
    <message>
        <source>positional {0} needs d_model &gt;= 4, got {1}</source>
        <translation>位置编码 {0} 需要 d_model &gt;= 4，实际为 {1}</translation>
    </message>
    <message>
        <source>rotary positions need an even number of dimensions per head, got d_model / n_heads = {0}</source>
        <translation>旋转位置编码需要每个头的维数为偶数，而 d_model / n_heads = {0}</translation>
    </message>
    <message>
        <source>share_embeddings needs one joint vocabulary: source has {0} tokens, target {1}</source>
        <translation>share_embeddings 需要一个共用词表：源语言有 {0} 个词元，目标语言有 {1} 个</translation>
    </message>
    <message>
        <source>n_kv_heads ({0}) must divide n_heads ({1}): each key/value head serves the same number of query heads</source>
        <translation>n_kv_heads（{0}）必须整除 n_heads（{1}）：每个键/值头服务同样多的查询头</translation>
    </message>
    <message>
        <source>relative_max_distance ({0}) must be above half of relative_buckets ({1}): one bucket per offset reaches that far</source>
        <translation>`relative_max_distance`（{0}）必须大于 `relative_buckets`（{1}）的一半：每个偏移一个桶的范围就到那里</translation>
    </message>
    <message>
        <source>pad_id {0} is outside the vocabularies</source>
        <translation>pad_id {0} 超出了词表范围</translation>
    </message>
    <message>
        <source>this model would have {0} parameters; transviz builds at most {1}</source>
        <translation>该模型将有 {0} 个参数；transviz 最多构建 {1} 个</translation>
    </message>
    <message>
        <source>start_from_prompt needs a decoder-only model, not {0}</source>
        <translation>start_from_prompt 需要仅解码器模型，而不是 {0}</translation>
    </message>
    <message>
        <source>a {0} model reads its source with its decoder's layers: n_encoder_layers ({1}) must equal n_decoder_layers ({2})</source>
        <translation>{0} 模型用解码器的层读取源句：`n_encoder_layers`（{1}）必须等于 `n_decoder_layers`（{2}）</translation>
    </message>
    <message>
        <source>a {0} model cannot have {1}</source>
        <translation>{0} 模型不能使用 {1}</translation>
    </message>
    <message>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>schedule must be one of {0}; got {1}</source>
        <translation>调度必须是 {0} 之一；而不是 {1}</translation>
    </message>
    <message>
        <source>the {0} schedule needs warmup_steps &gt;= 1</source>
        <translation>{0} 调度需要 warmup_steps &gt;= 1（至少 1 步预热）</translation>
    </message>
    <message>
        <source>warmup_steps ({0}) must be below steps ({1}) to leave room to decay</source>
        <translation>warmup_steps（{0}）必须小于 steps（{1}），才能留出衰减的步数</translation>
    </message>
    <message>
        <source>clip_norm must be &gt;= 0 (0 = off), got {0}</source>
        <translation>clip_norm 必须 &gt;= 0（0 = 不裁剪），而不是 {0}</translation>
    </message>
    <message>
        <source>the probe sentence is empty</source>
        <translation>探针句为空</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>unknown {0} settings: {1}</source>
        <translation>未知的{0}设置：{1}</translation>
    </message>
    <message>
        <source>incomplete {0} settings: {1}</source>
        <translation>{0}设置不完整：{1}</translation>
    </message>
    <message>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>unknown initialisation {0}; choose from {1}</source>
        <translation>未知的初始化 {0}；请从 {1} 中选择</translation>
    </message>
    <message>
        <source>the {0} initialisation takes no value (got {1})</source>
        <translation>{0} 初始化不带数值（得到的是 {1}）</translation>
    </message>
    <message>
        <source>{0}: the value after ':' must be a number</source>
        <translation>{0}：冒号“:”后面的值必须是数字</translation>
    </message>
    <message>
        <source>{0}: the scale must be positive</source>
        <translation>{0}：尺度必须为正数</translation>
    </message>
    <message>
        <source>warmup is the share of lr added per step, between 0 and 1; got {0}</source>
        <translation>warmup 是每步增加的学习率比例，应在 0 到 1 之间；而不是 {0}</translation>
    </message>
    <message>
        <source>lr=1e-3, no warm-up</source>
        <translation>lr=1e-3，无预热</translation>
    </message>
    <message>
        <source>lr=1e-4, no warm-up</source>
        <translation>lr=1e-4，无预热</translation>
    </message>
    <message>
        <source>lr=1e-5, no warm-up</source>
        <translation>lr=1e-5，无预热</translation>
    </message>
    <message>
        <source>lr=1e-3, 1% warm-up</source>
        <translation>lr=1e-3，1% 预热</translation>
    </message>
    <message>
        <source>xavier_uniform</source>
        <translation>xavier_uniform</translation>
    </message>
    <message>
        <source>xavier_normal</source>
        <translation>xavier_normal</translation>
    </message>
    <message>
        <source>normal 0.02</source>
        <translation>正态分布 0.02</translation>
    </message>
    <message>
        <source>normal 0.002</source>
        <translation>正态分布 0.002</translation>
    </message>
    <message>
        <source>normal 0.1</source>
        <translation>正态分布 0.1</translation>
    </message>
    <message>
        <source>uniform +-0.05</source>
        <translation>均匀分布 ±0.05</translation>
    </message>
    <message>
        <source>uniform +-0.01</source>
        <translation>均匀分布 ±0.01</translation>
    </message>
    <message>
        <source>uniform +-0.001</source>
        <translation>均匀分布 ±0.001</translation>
    </message>
    <message>
        <source>kaiming_uniform</source>
        <translation>kaiming_uniform</translation>
    </message>
    <message>
        <source>kaiming_normal</source>
        <translation>kaiming_normal</translation>
    </message>
    <message>
        <source>kaiming_normal 2 layer</source>
        <translation>kaiming_normal，2 层</translation>
    </message>
    <message>
        <source>kaiming_uniform 2 layer</source>
        <translation>kaiming_uniform，2 层</translation>
    </message>
    <message>
        <source>xavier_uniform 2 layer</source>
        <translation>xavier_uniform，2 层</translation>
    </message>
    <message>
        <source>default 2 layer</source>
        <translation>默认，2 层</translation>
    </message>
    <message>
        <source>uniform +-0.01 2 layer</source>
        <translation>均匀分布 ±0.01，2 层</translation>
    </message>
    <message>
        <source>lr=1e-3, no warm-up 2 layer</source>
        <translation>lr=1e-3，无预热，2 层</translation>
    </message>
    <message>
        <source>lr=1e-4, no warm-up 2 layer</source>
        <translation>lr=1e-4，无预热，2 层</translation>
    </message>
    <message>
        <source>lr=1e-3, no warm-up batch_size 64</source>
        <translation>lr=1e-3，无预热，批大小 64</translation>
    </message>
    <message>
        <source>post-LN, lr=1e-3, no warm-up</source>
        <translation>后置 LN，lr=1e-3，无预热</translation>
    </message>
    <message>
        <source>post-LN, lr=1e-3, 1% warm-up</source>
        <translation>后置 LN，lr=1e-3，1% 预热</translation>
    </message>
    <message>
        <source>pre-LN, lr=1e-3, no warm-up</source>
        <translation>前置 LN，lr=1e-3，无预热</translation>
    </message>
    <message>
        <source>pre-LN, lr=1e-3, 1% warm-up</source>
        <translation>前置 LN，lr=1e-3，1% 预热</translation>
    </message>
    <message>
        <source>no table called {0}; the seed's tables: {1}</source>
        <translation>没有名为 {0} 的表；教程中的表：{1}</translation>
    </message>
    <message>
        <source>finished {0} steps</source>
        <translation>完成了 {0} 步</translation>
    </message>
    <message>
        <source>stopped after {0} of {1} steps</source>
        <translation>在第 {0} 步停止（共 {1} 步）</translation>
    </message>
    <message>
        <source>checkpoint at step {0} of {1}</source>
        <translation>第 {0} 步的检查点（共 {1} 步）</translation>
    </message>
    <message>
        <source>training diverged at step {0}: {1} became {2}. The weights are back to those after step {3}, the last whose loss was finite, and nothing worse was saved. Try warm-up or a lower lr (step {4} used lr {5}).</source>
        <translation>训练在第 {0} 步发散：{1}变成了 {2}。权重已恢复到第 {3} 步之后的值（损失仍为有限值的最后一步），更差的权重没有保存。试试预热或更低的学习率（第 {4} 步的学习率为 {5}）。</translation>
    </message>
    <message>
        <source>the loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>the gradient norm</source>
        <translation>梯度范数</translation>
    </message>
    <message>
        <source>the probe sentence's scores</source>
        <translation>探针句的分数</translation>
    </message>
    <message>
        <source>cannot read {0}: {1}</source>
        <translation>无法读取 {0}：{1}</translation>
    </message>
    <message>
        <source>{0} is {1} MB; transviz reads corpora up to {2} MB (split it or keep a sample)</source>
        <translation>{0} 有 {1} MB；transviz 最多读取 {2} MB 的语料（请拆分文件或只保留一部分）</translation>
    </message>
    <message>
        <source>{0} has more than {1} lines; transviz reads corpora up to that many (split it or keep a sample)</source>
        <translation>{0} 超过 {1} 行；transviz 最多读取这么多行的语料（请拆分文件或只保留一部分）</translation>
    </message>
    <message>
        <source>{0} holds no sentence pairs: it is empty or only blank lines</source>
        <translation>{0} 中没有句对：文件为空或只有空行</translation>
    </message>
    <message>
        <source>{0} holds only {1} distinct pairs; a corpus needs at least {2} to split into train, valid and test</source>
        <translation>{0} 只有 {1} 个不同的句对；语料至少需要 {2} 个，才能分成训练集、验证集和测试集</translation>
    </message>
    <message>
        <source>{0}: its values are nested too deeply to read</source>
        <translation>{0}：其中的值嵌套得太深，无法读取</translation>
    </message>
    <message>
        <source>{0} is more than {1} MB: not a lesson or session file, which are far smaller</source>
        <translation>{0} 超过 {1} MB：不是课程或会话文件，这两种文件要小得多</translation>
    </message>
    <message>
        <source>cannot write {0}: {1} is a file, not a folder</source>
        <translation>无法写入 {0}：{1} 是文件，不是文件夹</translation>
    </message>
    <message>
        <source>line {0}: the {1} names layer {2}, but the model's {3} attention has layers 0 to {4}</source>
        <translation>第 {0} 行：{1} 指定了第 {2} 层，但模型的 {3} 注意力只有第 0 到 {4} 层</translation>
    </message>
    <message>
        <source>line {0}: the {1} names head {2}, but the model has heads 0 to {3}</source>
        <translation>第 {0} 行：{1} 指定了第 {2} 个头，但模型只有第 0 到 {3} 个头</translation>
    </message>
    <message>
        <source>the lesson has {0} slides; a lesson has at most {1}</source>
        <translation>这个课程有 {0} 张幻灯片；一个课程最多 {1} 张</translation>
    </message>
    <message>
        <source>{0} is a GPT-Neo model: its layers alternate attention over every position with attention within a window, and leave the scores unscaled; transviz's layers attend alike</source>
        <translation>{0} 是 GPT-Neo 模型：它的层交替使用覆盖所有位置的注意力和窗口内的注意力，而且分数不缩放；transviz 的各层注意力方式相同</translation>
    </message>
    <message>
        <source>{0} is a GPT-NeoX model: its attention and feed-forward layers run side by side on one input, with rotary positions on part of each head; transviz's run one after the other</source>
        <translation>{0} 是 GPT-NeoX 模型：它的注意力层和前馈层在同一个输入上并行运行，旋转位置只作用于每个头的一部分维度；transviz 的两者先后运行</translation>
    </message>
    <message>
        <source>{0} is a GPT-J model: its attention and feed-forward layers run side by side on one input, with rotary positions on interleaved pairs; transviz's run one after the other</source>
        <translation>{0} 是 GPT-J 模型：它的注意力层和前馈层在同一个输入上并行运行，旋转位置作用于交错的维度对；transviz 的两者先后运行</translation>
    </message>
    <message>
        <source>{0} is a Falcon model: its attention and feed-forward layers run side by side on one input; transviz's run one after the other</source>
        <translation>{0} 是 Falcon 模型：它的注意力层和前馈层在同一个输入上并行运行；transviz 的两者先后运行</translation>
    </message>
    <message>
        <source>{0}: scale_attn_by_inverse_layer_idx divides each layer's scores by its number too; transviz scales every layer's scores alike</source>
        <translation>{0}：scale_attn_by_inverse_layer_idx 还会把每层的分数除以该层的序号；transviz 对每层分数的缩放相同</translation>
    </message>
    <message>
        <source>{0}: reorder_and_upcast_attn computes the scores in another order in float32; transviz computes them as the model does without it</source>
        <translation>{0}：reorder_and_upcast_attn 以另一种顺序用 float32 计算分数；transviz 按不开这个选项时的方式计算</translation>
    </message>
    <message>
        <source>{0}: its rotary positions are scaled ({1}); transviz turns queries and keys by the plain RoPE angles</source>
        <translation>{0}：它的旋转位置经过缩放（{1}）；transviz 按普通 RoPE 的角度旋转查询和键</translation>
    </message>
    <message>
        <source>{0}: {1} is {2}; transviz reads it as true or false</source>
        <translation>{0}：{1} 是 {2}；transviz 只把它读作 true 或 false</translation>
    </message>
    <message>
        <source>{0}: eos_token_id names several end tokens ({1}); transviz stops at one</source>
        <translation>{0}：eos_token_id 给出了多个结束词元（{1}）；transviz 只在一个结束词元处停止</translation>
    </message>
    <message>
        <source>{0}: {1} must be a whole number from 1 to {2}, got {3}</source>
        <translation>{0}：{1} 必须是 1 到 {2} 之间的整数，得到的是 {3}</translation>
    </message>
    <message>
        <source>{0} is not a file: it is {1}</source>
        <translation>{0} 不是文件：它是{1}</translation>
    </message>
    <message>
        <source>a folder</source>
        <translation>一个文件夹</translation>
    </message>
    <message>
        <source>a named pipe (FIFO)</source>
        <translation>一个命名管道（FIFO）</translation>
    </message>
    <message>
        <source>a device</source>
        <translation>一个设备</translation>
    </message>
    <message>
        <source>neither a file nor a folder</source>
        <translation>既不是文件也不是文件夹</translation>
    </message>
    <message>
        <source>line {0} of {1} is longer than {2} MB, far longer than a sentence pair: a sentence holds at most {3} tokens</source>
        <translation>{1} 的第 {0} 行超过 {2} MB，远远长于一个句对：一个句子最多 {3} 个词元</translation>
    </message>
    <message>
        <source>line {0}: byte {1} is not UTF-8 text ({2}); save the file as UTF-8</source>
        <translation>第 {0} 行：第 {1} 个字节不是 UTF-8 文本（{2}）；请把文件保存为 UTF-8</translation>
    </message>
    <message>
        <source>line {0} of {1} holds control characters ({2}); remove them and try again</source>
        <translation>{1} 的第 {0} 行含有控制字符（{2}）；请删除后重试</translation>
    </message>
    <message>
        <source>line {0}: no tab; expected one tab between source and target</source>
        <translation>第 {0} 行：没有制表符；源句和目标句之间应有一个制表符</translation>
    </message>
    <message>
        <source>line {0}: {1} tabs; expected one tab between source and target</source>
        <translation>第 {0} 行：有 {1} 个制表符；源句和目标句之间应只有一个制表符</translation>
    </message>
    <message>
        <source>line {0}: the source is empty</source>
        <translation>第 {0} 行：源句为空</translation>
    </message>
    <message>
        <source>line {0}: the target is empty</source>
        <translation>第 {0} 行：目标句为空</translation>
    </message>
    <message>
        <source>line {0} of {1}: the {2} has {3} tokens; transviz learns from sentences of at most {4} (split the line or remove it)</source>
        <translation>{1} 的第 {0} 行：{2}有 {3} 个词元；transviz 只从最多 {4} 个词元的句子中学习（请拆分这一行或将其删除）</translation>
    </message>
    <message>
        <source>lines {0} and {1} give the same source {2} two different targets ({3} and {4}); each source needs exactly one</source>
        <translation>第 {0} 行和第 {1} 行给同一个源句 {2} 配了两个不同的目标句（{3} 和 {4}）；每个源句只能有一个目标句</translation>
    </message>
    <message>
        <source>{0} is not a readable safetensors file ({1})</source>
        <translation>{0} 不是可读取的 safetensors 文件（{1}）</translation>
    </message>
    <message>
        <source>{0} is a safetensors file from another program, not a transviz checkpoint</source>
        <translation>{0} 是其他程序的 safetensors 文件，不是 transviz 检查点</translation>
    </message>
    <message>
        <source>{0} has broken metadata: {1}</source>
        <translation>{0} 的元数据已损坏：{1}</translation>
    </message>
    <message>
        <source>model configuration</source>
        <translation>模型配置</translation>
    </message>
    <message>
        <source>source vocabulary</source>
        <translation>源语言词表</translation>
    </message>
    <message>
        <source>target vocabulary</source>
        <translation>目标语言词表</translation>
    </message>
    <message>
        <source>training facts</source>
        <translation>训练信息</translation>
    </message>
    <message>
        <source>a Hugging Face model stays in its folder: a transviz checkpoint cannot hold its tokenizer</source>
        <translation>Hugging Face 模型留在它自己的文件夹中：transviz 检查点无法保存它的分词器</translation>
    </message>
    <message>
        <source>cannot save the model to {0}: its vocabularies and facts take more than the {1} bytes a checkpoint's header holds</source>
        <translation>无法把模型保存到 {0}：其词表和训练信息超过检查点文件头可容纳的 {1} 字节</translation>
    </message>
    <message>
        <source>cannot save the model to {0}: it is a folder; give a file name such as {1}</source>
        <translation>无法把模型保存到 {0}：这是一个文件夹；请给出文件名，例如 {1}</translation>
    </message>
    <message>
        <source>cannot save the model to {0}: {1} ({2})</source>
        <translation>无法把模型保存到 {0}：{1}（{2}）</translation>
    </message>
    <message>
        <source>cannot save the model to {0}: {1}</source>
        <translation>无法把模型保存到 {0}：{1}</translation>
    </message>
    <message>
        <source>generation: writes {0} first, whatever the model predicts</source>
        <translation>生成规则：无论模型预测什么，都先写出 {0}</translation>
    </message>
    <message>
        <source>generation: never writes {0}</source>
        <translation>生成规则：从不写出 {0}</translation>
    </message>
    <message>
        <source>generation: writes {0} at the length limit</source>
        <translation>生成规则：到达长度上限时写出 {0}</translation>
    </message>
    <message>
        <source>a FIFO</source>
        <translation>命名管道（FIFO）</translation>
    </message>
    <message>
        <source>a character device</source>
        <translation>字符设备</translation>
    </message>
    <message>
        <source>a block device</source>
        <translation>块设备</translation>
    </message>
    <message>
        <source>a socket</source>
        <translation>套接字</translation>
    </message>
    <message>
        <source>{0} is not a regular file ({1}); a checkpoint is a {2} file</source>
        <translation>{0} 不是普通文件（{1}）；检查点是 {2} 文件</translation>
    </message>
    <message>
        <source>{0} is a folder, not a checkpoint file: name a {1} file in it</source>
        <translation>{0} 是文件夹，不是检查点文件：请指定其中的一个 {1} 文件</translation>
    </message>
    <message>
        <source>a special file</source>
        <translation>特殊文件</translation>
    </message>
    <message>
        <source>{0} is a symbolic link loop: following it never reaches a file</source>
        <translation>{0} 是符号链接循环：顺着它永远到不了文件</translation>
    </message>
    <message>
        <source>{0} is a symbolic link to {1}, which does not exist</source>
        <translation>{0} 是指向 {1} 的符号链接，而该目标不存在</translation>
    </message>
    <message>
        <source>{0}: no such file</source>
        <translation>{0}：没有这个文件</translation>
    </message>
    <message>
        <source>{0} is not a safetensors file: such a file begins with the length of its header, and this one's first bytes are not a length that fits in its {1} bytes</source>
        <translation>{0} 不是 safetensors 文件：这种文件以文件头的长度开头，而它开头的字节不是一个能容纳在其 {1} 字节中的长度</translation>
    </message>
    <message>
        <source>{0} is not a transviz checkpoint: its first 8 bytes give a header of {1} bytes; a checkpoint's header is at most {2}</source>
        <translation>{0} 不是 transviz 检查点：其前 8 个字节给出的文件头长度为 {1} 字节；检查点的文件头最多 {2} 字节</translation>
    </message>
    <message>
        <source>the {0} holds more than {1} JSON arrays and objects</source>
        <translation>{0} 含有超过 {1} 个 JSON 数组和对象</translation>
    </message>
    <message>
        <source>the {0} nests {1} levels deep; transviz writes at most {2}</source>
        <translation>{0} 嵌套了 {1} 层；transviz 最多写 {2} 层</translation>
    </message>
    <message>
        <source>the {0} nests too deep</source>
        <translation>{0} 嵌套过深</translation>
    </message>
    <message>
        <source>{0} is {1} GB; transviz checkpoints are far smaller</source>
        <translation>{0} 有 {1} GB；transviz 检查点要小得多</translation>
    </message>
    <message>
        <source>{0} has checkpoint format {1}; this transviz reads {2}</source>
        <translation>{0} 的检查点格式是 {1}；这个版本的 transviz 只读取格式 {2}</translation>
    </message>
    <message>
        <source>{0}: the file is truncated or damaged: it ends after {1} bytes, inside its {2}-byte header</source>
        <translation>{0}：文件不完整或已损坏：它在第 {1} 字节处结束，位于其 {2} 字节长的文件头之内</translation>
    </message>
    <message>
        <source>{0}: the file is truncated or damaged: it ends after {1} bytes; a complete file holds {2} bytes</source>
        <translation>{0}：文件不完整或已损坏：它在第 {1} 字节处结束；完整的文件应有 {2} 字节</translation>
    </message>
    <message>
        <source>{0}: its tensors cannot be read ({1})</source>
        <translation>{0}：无法读取其中的张量（{1}）</translation>
    </message>
    <message>
        <source>missing tensor {0}</source>
        <translation>缺少张量 {0}</translation>
    </message>
    <message>
        <source>the training facts take more than {0} bytes</source>
        <translation>训练信息超过 {0} 字节</translation>
    </message>
    <message>
        <source>the file holds both {0} and {1}, which the config ties into one tensor</source>
        <translation>文件同时含有 {0} 和 {1}，而配置把它们绑定为同一个张量</translation>
    </message>
    <message>
        <source>{0} has shape {1}, the config needs {2}</source>
        <translation>{0} 的形状是 {1}，模型设置需要 {2}</translation>
    </message>
    <message>
        <source>{0} holds {1}, not floating-point weights</source>
        <translation>{0} 存的是 {1}，不是浮点权重</translation>
    </message>
    <message>
        <source>{0} holds NaN or infinite values</source>
        <translation>{0} 含有 NaN 或无穷大的值</translation>
    </message>
    <message>
        <source>unexpected tensors {0}</source>
        <translation>多余的张量 {0}</translation>
    </message>
    <message>
        <source>{0} does not match its own config: {1}</source>
        <translation>{0} 与它自己的模型设置不符：{1}</translation>
    </message>
    <message>
        <source>training facts are not a JSON object</source>
        <translation>训练记录不是 JSON 对象</translation>
    </message>
    <message>
        <source>CPU, {0} threads</source>
        <translation>CPU，{0} 个线程</translation>
    </message>
    <message>
        <source>Apple GPU (Metal)</source>
        <translation>苹果 GPU（Metal）</translation>
    </message>
    <message>
        <source>{0}, {1} GB</source>
        <translation>{0}，显存 {1} GB</translation>
    </message>
    <message>
        <source>unknown device {0}: use auto, cpu, cuda, cuda:N or mps</source>
        <translation>未知的设备 {0}：请使用 auto、cpu、cuda、cuda:N 或 mps</translation>
    </message>
    <message>
        <source>device {0} is not available on this machine (found: {1})</source>
        <translation>这台机器上没有设备 {0}（找到的设备：{1}）</translation>
    </message>
    <message>
        <source>file: {0} ({1} MB)</source>
        <translation>文件：{0}（{1} MB）</translation>
    </message>
    <message>
        <source>parameters: {0}</source>
        <translation>参数：{0}</translation>
    </message>
    <message>
        <source>config.{0}: {1}</source>
        <translation>模型设置 {0}：{1}</translation>
    </message>
    <message>
        <source>source vocabulary: {0} tokens ({1})</source>
        <translation>源语言词表：{0} 个词元（{1}）</translation>
    </message>
    <message>
        <source>target vocabulary: {0} tokens ({1})</source>
        <translation>目标语言词表：{0} 个词元（{1}）</translation>
    </message>
    <message>
        <source>training.{0}: {1}</source>
        <translation>训练记录 {0}：{1}</translation>
    </message>
    <message>
        <source>char level</source>
        <translation>字符级</translation>
    </message>
    <message>
        <source>word level</source>
        <translation>词级</translation>
    </message>
    <message>
        <source>none are installed yet</source>
        <translation>尚未安装任何模型</translation>
    </message>
    <message>
        <source>no checkpoint file or shipped model called {0} (shipped models: {1})</source>
        <translation>没有名为 {0} 的检查点文件或内置模型（内置模型：{1}）</translation>
    </message>
    <message>
        <source>attention maps must be (layers, heads, queries, keys), got shape {0}</source>
        <translation>注意力图的形状必须是（层, 头, 查询, 键），而不是 {0}</translation>
    </message>
    <message>
        <source>attention maps are empty: shape {0}</source>
        <translation>注意力图为空：形状 {0}</translation>
    </message>
    <message>
        <source>rollout needs self-attention maps (queries = keys); these are {0} x {1}</source>
        <translation>注意力展开需要自注意力图（查询 = 键）；这些图是 {0} x {1}</translation>
    </message>
    <message>
        <source>decoder rollout needs maps of one sentence: decoder {0}, cross {1}, encoder {2}</source>
        <translation>解码器展开需要同一句子的注意力图：解码器 {0}，交叉 {1}，编码器 {2}</translation>
    </message>
    <message>
        <source>the pair {0} is longer than this model's limit of {1} tokens</source>
        <translation>句对 {0} 超过了这个模型 {1} 个词元的上限</translation>
    </message>
    <message>
        <source>there are no training pairs</source>
        <translation>没有训练句对</translation>
    </message>
    <message>
        <source>a joint vocabulary needs the same token level on both sides</source>
        <translation>共用词表要求两侧的词元级别相同</translation>
    </message>
    <message>
        <source>{0}: {1} train, {2} valid, {3} test pairs</source>
        <translation>{0}：训练 {1} 对，验证 {2} 对，测试 {3} 对</translation>
    </message>
    <message>
        <source>only {0} distinct pairs: too few to split into train, valid and test</source>
        <translation>只有 {0} 个不同的句对：太少，无法分成训练集、验证集和测试集</translation>
    </message>
    <message>
        <source>a corpus of your own needs its file of alignments beside it (one line of links like 0-0 1-2 per sentence pair)</source>
        <translation>你自己的语料需要配一个对齐文件（每个句对一行链接，如 0-0 1-2）</translation>
    </message>
    <message>
        <source>the task {0} has no gold alignments: give a corpus and its file of alignments</source>
        <translation>任务 {0} 没有标准对齐：请给出语料及其对齐文件</translation>
    </message>
    <message>
        <source>there are no pairs to evaluate</source>
        <translation>没有可评估的句对</translation>
    </message>
    <message>
        <source>{0} must be from {1} to {2}, got {3}</source>
        <translation>{0} 必须在 {1} 到 {2} 之间，得到的是 {3}</translation>
    </message>
    <message>
        <source>the target has {0} tokens; this model reads at most {1}</source>
        <translation>目标句有 {0} 个词元；这个模型最多读入 {1} 个</translation>
    </message>
    <message>
        <source>{0}; {1}</source>
        <translation>{0}；{1}</translation>
    </message>
    <message>
        <source>an edited attention row has {0} weights, but query {1} sees only {2} keys</source>
        <translation>手工设定的注意力行有 {0} 个权重，但查询 {1} 只能看到 {2} 个键</translation>
    </message>
    <message>
        <source>an edited attention row of query {0} puts all its weight on keys that query may not see</source>
        <translation>查询 {0} 的手工注意力行把全部权重放在了这个查询看不到的键上</translation>
    </message>
    <message>
        <source>this model continues a prompt: give it at least two tokens (its last one is the first input of the output)</source>
        <translation>这个模型接着提示往下写：请至少给两个词元（最后一个是输出的第一个输入）</translation>
    </message>
    <message>
        <source>{0} must be a (batch, length) tensor of token ids</source>
        <translation>{0} 必须是由词元编号组成的（批次, 长度）张量</translation>
    </message>
    <message>
        <source>{0} must hold integer token ids, got {1}</source>
        <translation>{0} 必须是整数词元编号，而不是 {1}</translation>
    </message>
    <message>
        <source>{0} is empty</source>
        <translation>{0} 为空</translation>
    </message>
    <message>
        <source>{0} has {1} tokens; this model reads at most {2}</source>
        <translation>{0} 有 {1} 个词元；这个模型最多读入 {2} 个</translation>
    </message>
    <message>
        <source>{0} holds token id {1}, outside the vocabulary of {2}</source>
        <translation>{0} 含有词元编号 {1}，超出了大小为 {2} 的词表</translation>
    </message>
    <message>
        <source>this model adds no positional table to its embeddings (its positions: {0})</source>
        <translation>这个模型不在嵌入上加位置编码表（它的位置方式：{0}）</translation>
    </message>
    <message>
        <source>source and output together reach this model's limit of {0} tokens</source>
        <translation>源句和输出合起来达到了此模型 {0} 个词元的上限</translation>
    </message>
    <message>
        <source>source</source>
        <translation>源句</translation>
    </message>
    <message>
        <source>a source sentence holds only padding</source>
        <translation>有一个源句只含填充</translation>
    </message>
    <message>
        <source>target</source>
        <translation>目标句</translation>
    </message>
    <message>
        <source>the output reached this model's limit of {0} tokens</source>
        <translation>输出已达到这个模型 {0} 个词元的上限</translation>
    </message>
    <message>
        <source>decoder token</source>
        <translation>解码器词元</translation>
    </message>
    <message>
        <source>grouped-query attention, 2 key/value heads</source>
        <translation>分组查询注意力，2 个键/值头</translation>
    </message>
    <message>
        <source>multi-query attention, 1 key/value head</source>
        <translation>多查询注意力，1 个键/值头</translation>
    </message>
    <message>
        <source>rotary positions (RoPE)</source>
        <translation>旋转位置编码（RoPE）</translation>
    </message>
    <message>
        <source>learned positions</source>
        <translation>学习得到的位置编码</translation>
    </message>
    <message>
        <source>rotary positions</source>
        <translation>旋转位置编码</translation>
    </message>
    <message>
        <source>ALiBi positions</source>
        <translation>ALiBi 位置偏置</translation>
    </message>
    <message>
        <source>no positions</source>
        <translation>无位置编码</translation>
    </message>
    <message>
        <source>T5's relative positions</source>
        <translation>T5 的相对位置</translation>
    </message>
    <message>
        <source>decoder-only, a prefix LM</source>
        <translation>仅解码器，前缀语言模型</translation>
    </message>
    <message>
        <source>decoder-only, causal</source>
        <translation>仅解码器，因果</translation>
    </message>
    <message>
        <source>multi-query attention</source>
        <translation>多查询注意力</translation>
    </message>
    <message>
        <source>grouped-query attention, {0} key/value heads</source>
        <translation>分组查询注意力，{0} 个键/值头</translation>
    </message>
    <message>
        <source>a window of {0} keys</source>
        <translation>{0} 个键的窗口</translation>
    </message>
    <message>
        <source>unscaled scores</source>
        <translation>未缩放的分数</translation>
    </message>
    <message>
        <source>gated feed-forward</source>
        <translation>门控前馈层</translation>
    </message>
    <message>
        <source>pre-LN</source>
        <translation>前置 LN</translation>
    </message>
    <message>
        <source>RMSNorm</source>
        <translation>RMSNorm</translation>
    </message>
    <message>
        <source>sliding window of 3 keys</source>
        <translation>3 个键的滑动窗口</translation>
    </message>
    <message>
        <source>pre-LN with RMSNorm, no warm-up</source>
        <translation>前置 LN 加 RMSNorm，无预热</translation>
    </message>
    <message>
        <source>one stack reads source and output, a prefix LM</source>
        <translation>一个层栈读取源句和输出，前缀语言模型</translation>
    </message>
    <message>
        <source>no recipe called {0}; recipes: {1}</source>
        <translation>没有名为 {0} 的配方；可用的配方：{1}</translation>
    </message>
    <message>
        <source>steps count from 1, got {0}</source>
        <translation>步数从 1 开始计，而不是 {0}</translation>
    </message>
    <message>
        <source>unknown schedule {0}</source>
        <translation>未知的调度 {0}</translation>
    </message>
    <message>
        <source>the attention snapshots in this checkpoint are incomplete ({0})</source>
        <translation>这个检查点中的注意力快照不完整（{0}）</translation>
    </message>
    <message>
        <source>{0} holds no training snapshots</source>
        <translation>{0} 中没有训练快照</translation>
    </message>
    <message>
        <source>{0} has no snapshot at step {1}; its steps: {2}</source>
        <translation>{0} 没有第 {1} 步的快照；它有这些步：{2}</translation>
    </message>
    <message>
        <source>temperature must be from {0} to {1}, got {2} (a smaller temperature always picks the most probable token: that is greedy decoding)</source>
        <translation>温度必须在 {0} 到 {1} 之间，而不是 {2}（更小的温度总是选出概率最高的词元：那就是贪心解码）</translation>
    </message>
    <message>
        <source>top_k must be 0 (no limit) or a positive whole number, got {0}</source>
        <translation>top_k 必须是 0（不限制）或正整数，而不是 {0}</translation>
    </message>
    <message>
        <source>{0} must be in (0, 1], got {1}</source>
        <translation>{0} 必须在 (0, 1] 之内，而不是 {1}</translation>
    </message>
    <message>
        <source>beam width must be a whole number from 1 to {0}, got {1}</source>
        <translation>束宽必须是 1 到 {0} 之间的整数，而不是 {1}</translation>
    </message>
    <message>
        <source>length_penalty must be from 0 to {0}, got {1}</source>
        <translation>length_penalty 必须在 0 到 {0} 之间，而不是 {1}</translation>
    </message>
    <message>
        <source>the beam rule must be {0} or {1}, got {2}</source>
        <translation>束搜索规则必须是 {0} 或 {1}，得到的是 {2}</translation>
    </message>
    <message>
        <source>early_stopping must be true, false or {0}, got {1}</source>
        <translation>early_stopping 必须是 true、false 或 {0}，得到的是 {1}</translation>
    </message>
    <message>
        <source>unknown strategy {0}: choose greedy, sampling or beam</source>
        <translation>未知的策略 {0}：请选择 greedy、sampling 或 beam</translation>
    </message>
    <message>
        <source>a strategy must be Greedy(), Sampling(...) or Beam(...), got {0}</source>
        <translation>策略必须是 Greedy()、Sampling(...) 或 Beam(...)，而不是 {0}</translation>
    </message>
    <message>
        <source>German → English</source>
        <translation>德语 → 英语</translation>
    </message>
    <message>
        <source>dates → YYYY-MM-DD</source>
        <translation>日期 → YYYY-MM-DD</translation>
    </message>
    <message>
        <source>Chinese → English</source>
        <translation>中文 → 英语</translation>
    </message>
    <message>
        <source>toy-de-en</source>
        <translation>德译英（小语法）</translation>
    </message>
    <message>
        <source>dates</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>toy-zh-en</source>
        <translation>中译英（小语法）</translation>
    </message>
    <message>
        <source>copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>reverse</source>
        <translation>倒序</translation>
    </message>
    <message>
        <source>sort</source>
        <translation>排序</translation>
    </message>
    <message>
        <source>no task called {0}; built-in tasks: {1}</source>
        <translation>没有名为 {0} 的任务；内置任务：{1}</translation>
    </message>
    <message>
        <source>cannot write {0}: the folder {1} does not exist</source>
        <translation>无法写入 {0}：文件夹 {1} 不存在</translation>
    </message>
    <message>
        <source>{0}, line {1}: {2}</source>
        <translation>{0}，第 {1} 行：{2}</translation>
    </message>
    <message>
        <source>{0} must be a table, {1}</source>
        <translation>{0} 必须是一个表，{1}</translation>
    </message>
    <message>
        <source>unknown key {0} (known: {1})</source>
        <translation>未知的键 {0}（可用：{1}）</translation>
    </message>
    <message>
        <source>{0} is missing</source>
        <translation>缺少 {0}</translation>
    </message>
    <message>
        <source>{0} must be {1}, got {2}</source>
        <translation>{0} 必须是{1}，实际为 {2}</translation>
    </message>
    <message>
        <source>{0} must be 0 or more, got {1}</source>
        <translation>{0} 必须大于或等于 0，实际为 {1}</translation>
    </message>
    <message>
        <source>{0} must be one of {1}, got {2}</source>
        <translation>{0} 必须是 {1} 之一，实际为 {2}</translation>
    </message>
    <message>
        <source>format must be {0}, got {1}</source>
        <translation>format 必须是 {0}，实际为 {1}</translation>
    </message>
    <message>
        <source>this transviz reads lesson version {0}, got {1}</source>
        <translation>此版本的 transviz 读取第 {0} 版课程文件，实际为 {1}</translation>
    </message>
    <message>
        <source>a lesson needs at least one [[slide]]</source>
        <translation>课程至少需要一个 [[slide]]</translation>
    </message>
    <message>
        <source>tab = {0} gives the quiz's answer away: its walkthrough draws the step the class is asked about</source>
        <translation>tab = {0} 会泄露测验的答案：它的逐步演示画出了全班被问到的那一步</translation>
    </message>
    <message>
        <source>{0}</source>
        <translation>{0}</translation>
    </message>
    <message>
        <source>{0} must be a list of {1}</source>
        <translation>{0} 必须是由 {1} 组成的列表</translation>
    </message>
    <message>
        <source>a forced step must be one of the slide's {0} steps, once, got {1}</source>
        <translation>强制的步骤必须是该幻灯片 {0} 个步骤之一，且只能出现一次，实际为 {1}</translation>
    </message>
    <message>
        <source>tab = {0} has no pages; the tabs with pages: {1}</source>
        <translation>tab = {0} 没有分页；有分页的标签页：{1}</translation>
    </message>
    <message>
        <source>a view's head is a number from 0 or {0}, got {1}</source>
        <translation>视图的 head 是从 0 开始的数字或 {0}，实际为 {1}</translation>
    </message>
    <message>
        <source>unknown intervention {0} (known: {1})</source>
        <translation>未知的干预 {0}（可用：{1}）</translation>
    </message>
    <message>
        <source>{0} has no setting {1}</source>
        <translation>{0} 没有设置项 {1}</translation>
    </message>
    <message>
        <source>{0} needs {1}</source>
        <translation>{0} 需要 {1}</translation>
    </message>
    <message>
        <source>a "{0}" question names the head: kind, layer and head</source>
        <translation>“{0}”问题要指明是哪个头：kind、layer 和 head</translation>
    </message>
    <message>
        <source>an "aligns" question names the layer</source>
        <translation>“aligns”问题要指明是哪一层</translation>
    </message>
    <message>
        <source>a "queries" question names the attention kind</source>
        <translation>`queries` 问题要指明注意力的种类</translation>
    </message>
    <message>
        <source>{0}, line {1}: not valid TOML: {2}</source>
        <translation>{0}，第 {1} 行：不是有效的 TOML：{2}</translation>
    </message>
    <message>
        <source>cannot add a slide to {0}: its slides are not written as [[slide]] tables; it was not changed</source>
        <translation>无法向 {0} 添加幻灯片：它的幻灯片不是以 [[slide]] 表的形式写的；文件未改动</translation>
    </message>
    <message>
        <source>cannot add a slide to {0}: the slide would not read back as it is; it was not changed</source>
        <translation>无法向 {0} 添加幻灯片：添加后读回的幻灯片与原样不符；文件未改动</translation>
    </message>
    <message>
        <source>cannot write {0}: {1}</source>
        <translation>无法写入 {0}：{1}</translation>
    </message>
    <message>
        <source>cannot export a trace to {0}: choose a .npz or .json file name</source>
        <translation>无法把解码轨迹导出到 {0}：请选择 .npz 或 .json 文件名</translation>
    </message>
    <message>
        <source>unknown attention kind {0}; choose one of {1}</source>
        <translation>未知的注意力类型 {0}；请从 {1} 中选择</translation>
    </message>
    <message>
        <source>layer {0} does not exist: this model's {1} stack has layers 0..{2}</source>
        <translation>第 {0} 层不存在：这个模型的 {1} 层堆叠只有第 0..{2} 层</translation>
    </message>
    <message>
        <source>head {0} does not exist: this model has heads 0..{1}</source>
        <translation>头 {0} 不存在：这个模型只有头 0..{1}</translation>
    </message>
    <message>
        <source>no summary {0}; summaries: {1}</source>
        <translation>没有名为 {0} 的汇总；可选的汇总：{1}</translation>
    </message>
    <message>
        <source>no model is loaded: open a checkpoint first</source>
        <translation>没有加载模型：请先打开一个检查点</translation>
    </message>
    <message>
        <source>a transviz checkpoint</source>
        <translation>transviz 检查点</translation>
    </message>
    <message>
        <source>a NumPy .npz archive</source>
        <translation>NumPy .npz 归档</translation>
    </message>
    <message>
        <source>a JSON file</source>
        <translation>JSON 文件</translation>
    </message>
    <message>
        <source>a PNG picture</source>
        <translation>PNG 图片</translation>
    </message>
    <message>
        <source>an SVG picture</source>
        <translation>SVG 图片</translation>
    </message>
    <message>
        <source>a text file</source>
        <translation>文本文件</translation>
    </message>
    <message>
        <source>a PNG or SVG picture</source>
        <translation>PNG 或 SVG 图片</translation>
    </message>
    <message>
        <source>a GIF or MP4 animation</source>
        <translation>GIF 或 MP4 动画</translation>
    </message>
    <message>
        <source>cannot write {0}: that file is this command's input ({1}); choose another name for the output</source>
        <translation>无法写入 {0}：这个文件是本命令的输入（{1}）；请为输出换一个名字</translation>
    </message>
    <message>
        <source>cannot write {0}: it is a folder; give a file name such as {1}</source>
        <translation>无法写入 {0}：这是一个文件夹；请给出文件名，例如 {1}</translation>
    </message>
    <message>
        <source>cannot write {0} to {1}: the file name must end in {2}</source>
        <translation>无法把{0}写入 {1}：文件名必须以 {2} 结尾</translation>
    </message>
    <message>
        <source>{0} already exists and is not {1}: it was left as it is; choose another name, or give --force to replace it</source>
        <translation>{0} 已存在，但不是{1}：它保持原样未被改动；请换一个名字，或加上 --force 来替换它</translation>
    </message>
    <message>
        <source>{0} or {1}</source>
        <translation>{0} 或 {1}</translation>
    </message>
    <message>
        <source>the model computed NaN or infinite scores for this input: its weights are damaged</source>
        <translation>模型对这个输入算出了 NaN 或无穷大的分数：它的权重已损坏</translation>
    </message>
    <message>
        <source>{0}: its weights make the model compute NaN, infinite or absurdly large values (the file is damaged); largest weights: {1}</source>
        <translation>{0}：其权重使模型算出 NaN、无穷大或大得离谱的值（文件已损坏）；最大的权重：{1}</translation>
    </message>
    <message>
        <source>the attention kind must be encoder_self, decoder_self or cross, got {0}</source>
        <translation>注意力类型必须是 'encoder_self'、'decoder_self' 或 'cross'，收到的是 {0}</translation>
    </message>
    <message>
        <source>an ablation's mode must be zero, uniform, mean or copy, got {0}</source>
        <translation>消融方式必须是 zero、uniform、mean 或 copy，得到的是 {0}</translation>
    </message>
    <message>
        <source>a head copies another's pattern when, and only when, the ablation's mode is copy and it names a source head</source>
        <translation>只有当消融方式为 copy 并指明来源头时，一个头才会复制另一个头的注意力模式</translation>
    </message>
    <message>
        <source>a source head is (layer, head), got {0}</source>
        <translation>来源头应写成 (层, 头)，得到的是 {0}</translation>
    </message>
    <message>
        <source>a head can copy the pattern of another head in the same or an earlier layer, got {0} for layer {1}, head {2}</source>
        <translation>一个头只能复制同一层或更早层中另一个头的模式；第 {1} 层第 {2} 头得到的是 {0}</translation>
    </message>
    <message>
        <source>the scale factor must be a number from 0 to 1e6, got {0}</source>
        <translation>缩放系数必须是 0 到 1e6 之间的数，收到的是 {0}</translation>
    </message>
    <message>
        <source>encoder self</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>decoder self</source>
        <translation>解码器自注意力</translation>
    </message>
    <message>
        <source>cross</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>everywhere</source>
        <translation>所有位置</translation>
    </message>
    <message>
        <source>{0} L{1}</source>
        <translation>{0} L{1}</translation>
    </message>
    <message>
        <source>{0} L{1} H{2}</source>
        <translation>{0} L{1} H{2}</translation>
    </message>
    <message>
        <source>{0} uses L{1} H{2}'s pattern</source>
        <translation>{0} 使用 L{1} H{2} 的注意力模式</translation>
    </message>
    <message>
        <source>{0} off (zero)</source>
        <translation>{0} 关闭（置零）</translation>
    </message>
    <message>
        <source>{0} off (uniform)</source>
        <translation>{0} 关闭（均匀）</translation>
    </message>
    <message>
        <source>{0} off (mean)</source>
        <translation>{0} 关闭（平均值）</translation>
    </message>
    <message>
        <source>a layer to scale needs its attention kind too</source>
        <translation>要缩放某一层，还需要指定它的注意力类型</translation>
    </message>
    <message>
        <source>scores × {0}: {1}</source>
        <translation>分数 × {0}：{1}</translation>
    </message>
    <message>
        <source>Q = K: {0}</source>
        <translation>Q = K：{0}</translation>
    </message>
    <message>
        <source>positions can be left out of the encoder, the decoder or both, got {0}</source>
        <translation>可以去掉位置编码的是 'encoder'、'decoder' 或 'both'，收到的是 {0}</translation>
    </message>
    <message>
        <source>this model has no positions to leave out</source>
        <translation>这个模型没有可以去掉的位置信息</translation>
    </message>
    <message>
        <source>no positions: {0}</source>
        <translation>无位置编码：{0}</translation>
    </message>
    <message>
        <source>an edited row needs 1 to {0} weights, none negative, not all 0</source>
        <translation>手工设定的行需要 1 到 {0} 个权重，不能为负，也不能全为 0</translation>
    </message>
    <message>
        <source>{0} row {1} painted</source>
        <translation>{0} 第 {1} 行已手绘</translation>
    </message>
    <message>
        <source>a decoder-only model has no cross-attention of its own: its output attends to the source inside its self-attention, so choose decoder_self (its rows cover the source and the output)</source>
        <translation>仅解码器模型没有独立的交叉注意力：它的输出在自注意力中关注源句，请选择 `decoder_self`（它的行覆盖源句和输出）</translation>
    </message>
    <message>
        <source>no layer {0}: the {1} attention has layers 0 to {2}</source>
        <translation>没有第 {0} 层：{1} 注意力的层号是 0 到 {2}</translation>
    </message>
    <message>
        <source>no head {0}: this model has heads 0 to {1}</source>
        <translation>没有第 {0} 个头：这个模型的头编号是 0 到 {1}</translation>
    </message>
    <message>
        <source>not an intervention: {0}</source>
        <translation>不是一种干预：{0}</translation>
    </message>
    <message>
        <source>the metric must be exact_match or logprob, got {0}</source>
        <translation>指标必须是 exact_match 或 logprob，得到的是 {0}</translation>
    </message>
    <message>
        <source>this model does not say which task it learned: give its sentence pairs as a TSV file</source>
        <translation>这个模型没有说明它学的是哪个任务：请以 TSV 文件给出它的句对</translation>
    </message>
    <message>
        <source>this model learned {0}, not a built-in task: give its sentence pairs as a TSV file</source>
        <translation>这个模型学的是 {0}，不是内置任务：请以 TSV 文件给出它的句对</translation>
    </message>
    <message>
        <source>{0} is not a permutation of the {1} source positions</source>
        <translation>{0} 不是 {1} 个源句位置的一个排列</translation>
    </message>
    <message>
        <source>shuffling needs a sentence of at least two tokens</source>
        <translation>打乱需要至少包含两个词元的句子</translation>
    </message>
    <message>
        <source>d_k must be a whole number from 1 to 65536, got {0}</source>
        <translation>d_k 必须是 1 到 65536 之间的整数，得到的是 {0}</translation>
    </message>
    <message>
        <source>the model writes nothing for this sentence: there are no decoder rows to show</source>
        <translation>模型对这个句子什么也没有写出：没有解码器的行可以显示</translation>
    </message>
    <message>
        <source>no output token yet: take a decoding step first</source>
        <translation>还没有输出词元：请先解码一步</translation>
    </message>
    <message>
        <source>no layer {0}: the {1} has layers 0 to {2}</source>
        <translation>没有第 {0} 层：{1} 的层为 0 到 {2}</translation>
    </message>
    <message>
        <source>integrated gradients need at least {0} steps and a baseline of {1}</source>
        <translation>积分梯度至少需要 {0} 步，基线须为 {1}</translation>
    </message>
    <message>
        <source>process {0} of this machine has no GPU of its own (found {1})</source>
        <translation>本机的第 {0} 个进程没有属于自己的 GPU（只找到 {1} 个）</translation>
    </message>
    <message>
        <source>under torchrun use --device auto, cuda or cpu: each process takes the GPU of its local rank</source>
        <translation>在 torchrun 下请使用 --device auto、cuda 或 cpu：每个进程使用与其本地序号对应的 GPU</translation>
    </message>
    <message>
        <source>a pass of these sizes costs {0} MFLOPs; transviz times passes of at most {1} MFLOPs (a few seconds)</source>
        <translation>这些尺寸的一次前向需要 {0} MFLOPs；transviz 只为至多 {1} MFLOPs 的前向计时（几秒钟）</translation>
    </message>
    <message>
        <source>a model of these sizes has {0} parameters; transviz times models of at most {1}</source>
        <translation>这些尺寸的模型有 {0} 个参数；transviz 只为至多 {1} 个参数的模型计时</translation>
    </message>
    <message>
        <source>line {0}: {1}</source>
        <translation>第 {0} 行：{1}</translation>
    </message>
    <message>
        <source>line {0}: the model {1} is neither a shipped model nor a file (looked for {2})</source>
        <translation>第 {0} 行：模型 {1} 既不是内置模型，也不是文件（查找位置：{2}）</translation>
    </message>
    <message>
        <source>the slide asks for {0} steps, but decoding stops after {1}: {2}</source>
        <translation>该幻灯片要求 {0} 步，但解码在第 {1} 步后停止：{2}</translation>
    </message>
    <message>
        <source>line {0}: the quiz's answer {1} is not a token the model can write (its output vocabulary has no such token)</source>
        <translation>第 {0} 行：测验答案 {1} 不是模型能写出的词元（其输出词表中没有这个词元）</translation>
    </message>
    <message>
        <source>{0}, {1}</source>
        <translation>{0}，{1}</translation>
    </message>
    <message>
        <source>a quiz asks {0}, not '{1}'</source>
        <translation>测验问的是 {0} 之一，而不是“{1}”</translation>
    </message>
    <message>
        <source>a quiz asks where a 'cross' or 'decoder_self' head looks, not a '{0}' head</source>
        <translation>测验只能问 'cross' 或 'decoder_self' 注意力头关注哪里，不能是 '{0}' 头</translation>
    </message>
    <message>
        <source>a quiz has no field '{0}'</source>
        <translation>测验没有字段“{0}”</translation>
    </message>
    <message>
        <source>this model has {0} layers of {1} heads: there is no layer {2}, head {3}</source>
        <translation>该模型有 {0} 层，每层 {1} 个头：没有第 {2} 层第 {3} 个头</translation>
    </message>
    <message>
        <source>no layer ranks '{0}' first, not even the last: the strategy or a forced token chose it</source>
        <translation>没有哪一层把“{0}”排在第一，最后一层也没有：它是解码策略或强制的词元选出的</translation>
    </message>
    <message>
        <source>at step {0} the decoder's mask has {1} blocked cells and {2} that may attend: a mask question needs at least 1 and {3}, and this sentence's mask never has them</source>
        <translation>第 {0} 步时解码器的掩码有 {1} 个被掩码的格和 {2} 个可关注的格：掩码题至少需要 1 个和 {3} 个，而这个句子的掩码永远不够</translation>
    </message>
    <message>
        <source>at step {0} the decoder's mask has {1} blocked cells and {2} that may attend: a mask question needs at least 1 and {3}. Ask it from step {4} on</source>
        <translation>第 {0} 步时解码器的掩码有 {1} 个被掩码的格和 {2} 个可关注的格：掩码题至少需要 1 个和 {3} 个。请从第 {4} 步起再问</translation>
    </message>
    <message>
        <source>a frame must show for 20 to 60000 ms, not {0}</source>
        <translation>每一帧的显示时间须在 20 到 60000 毫秒之间，而不是 {0}</translation>
    </message>
    <message>
        <source>the last frame's hold must be 0 to 600000 ms, not {0}</source>
        <translation>最后一帧的停留时间须在 0 到 600000 毫秒之间，而不是 {0}</translation>
    </message>
    <message>
        <source>cannot write an animation to {0}: the file name must end in .gif or .mp4</source>
        <translation>无法把动画写入 {0}：文件名必须以 .gif 或 .mp4 结尾</translation>
    </message>
    <message>
        <source>an animation needs at least one frame</source>
        <translation>动画至少需要一帧</translation>
    </message>
    <message>
        <source>MP4 needs imageio-ffmpeg: pip install 'transviz[video]' (or write a .gif, which needs nothing more)</source>
        <translation>MP4 需要 imageio-ffmpeg：pip install 'transviz[video]'（或者写成 .gif，无需额外安装）</translation>
    </message>
    <message>
        <source>MP4 needs ffmpeg, and this computer has none: install ffmpeg (e.g. apt install ffmpeg), or write a .gif, which needs nothing more</source>
        <translation>MP4 需要 ffmpeg，而这台电脑上没有：请安装 ffmpeg（例如 apt install ffmpeg），或者写成 .gif，无需额外安装</translation>
    </message>
    <message>
        <source>ffmpeg could not write the MP4: {0}</source>
        <translation>ffmpeg 无法写出 MP4：{0}</translation>
    </message>
    <message>
        <source>a whole number</source>
        <translation>整数</translation>
    </message>
    <message>
        <source>true or false</source>
        <translation>true 或 false</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>a list</source>
        <translation>列表</translation>
    </message>
    <message>
        <source>a JSON object</source>
        <translation>JSON 对象</translation>
    </message>
    <message>
        <source>{0} is a pickle (torch.save) file, and transviz never unpickles: loading one can run any code. Save the weights with safetensors.torch.save_file, giving it model.state_dict() and a .safetensors name, and describe them in a sidecar (see the manual: Your own PyTorch model)</source>
        <translation>{0} 是 pickle（torch.save）文件，transviz 从不反序列化 pickle：加载它可能执行任意代码。请用 safetensors.torch.save_file 保存权重（传入 model.state_dict() 和一个 .safetensors 文件名），并用附带的说明文件描述它们（见手册：你自己的 PyTorch 模型）</translation>
    </message>
    <message>
        <source>{0}: the sidecar lacks the field {1}</source>
        <translation>{0}：说明文件缺少字段 {1}</translation>
    </message>
    <message>
        <source>{0}: the field {1} must be {2}, got {3}</source>
        <translation>{0}：字段 {1} 必须是{2}，实际为 {3}</translation>
    </message>
    <message>
        <source>{0}: unknown sidecar fields {1}</source>
        <translation>{0}：说明文件中有未知字段 {1}</translation>
    </message>
    <message>
        <source>{0} does not match its sidecar: {1}</source>
        <translation>{0} 与其说明文件不符：{1}</translation>
    </message>
    <message>
        <source>{0} is not a transviz-torch sidecar: its format is {1}</source>
        <translation>{0} 不是 transviz-torch 说明文件：其 format 为 {1}</translation>
    </message>
    <message>
        <source>{0} is a sidecar of version {1}; this transviz reads version {2}</source>
        <translation>{0} 是版本 {1} 的说明文件；此版本的 transviz 读取版本 {2}</translation>
    </message>
    <message>
        <source>a tensor's name or a list of them</source>
        <translation>一个张量名或张量名的列表</translation>
    </message>
    <message>
        <source>{0}: layout {1} is not one transviz knows ({2})</source>
        <translation>{0}：transviz 不认识布局 {1}（它认识 {2}）</translation>
    </message>
    <message>
        <source>{0}: names.{1} is none of transviz's weights (the manual lists them)</source>
        <translation>{0}：names.{1} 不是 transviz 的任何一个权重（手册中列出了它们）</translation>
    </message>
    <message>
        <source>{0}: every name in names.{1} must hold {2}, where the layer's number goes</source>
        <translation>{0}：names.{1} 中的每个名字都必须含有 {2}，表示层号的位置</translation>
    </message>
    <message>
        <source>{0} is {1} MB; a sidecar is far smaller</source>
        <translation>{0} 有 {1} MB；说明文件要小得多</translation>
    </message>
    <message>
        <source>sidecar</source>
        <translation>说明文件</translation>
    </message>
    <message>
        <source>{0} is not a readable JSON sidecar ({1})</source>
        <translation>{0} 不是可读取的 JSON 说明文件（{1}）</translation>
    </message>
    <message>
        <source>(the whole file)</source>
        <translation>（整个文件）</translation>
    </message>
    <message>
        <source>{0}: {1} is {2}, outside the vocabulary's {3} tokens</source>
        <translation>{0}：{1} 为 {2}，超出了词表的 {3} 个词元</translation>
    </message>
    <message>
        <source>{0}: {1} gives the same id to two of pad, start, end and unknown</source>
        <translation>{0}：{1} 给 pad、start、end 和 unknown 中的两个指定了相同的编号</translation>
    </message>
    <message>
        <source>{0}: {1} is not usable: {2}</source>
        <translation>{0}：{1} 无法使用：{2}</translation>
    </message>
    <message>
        <source>{0}: positional encoding {1} is not supported; transviz reads "sinusoidal" (the paper's fixed table, sin and cos columns interleaved)</source>
        <translation>{0}：不支持位置编码 {1}；transviz 只读取 "sinusoidal"（论文中的固定表，sin 与 cos 列交替）</translation>
    </message>
    <message>
        <source>unexpected tensor {0}: the sidecar does not say what it is (check the layer counts, the layout and bias, or declare it in modules)</source>
        <translation>意外的张量 {0}：说明文件没有说明它是什么（请检查层数、布局和 bias，或在 modules 中声明它）</translation>
    </message>
    <message>
        <source>{0} has no {1}: a model saved with save_pretrained has one</source>
        <translation>{0} 中没有 {1}：用 save_pretrained 保存的模型都有这个文件</translation>
    </message>
    <message>
        <source>{0}: model type {1} is not one transviz reads (it reads {2})</source>
        <translation>{0}：transviz 不读取模型类型 {1}（它读取 {2}）</translation>
    </message>
    <message>
        <source>{0} is a BlenderbotSmall model: its decoder normalises the token embeddings before it adds the positions (its encoder after); transviz's model normalises both stacks after</source>
        <translation>{0} 是 BlenderbotSmall 模型：它的解码器在加上位置之前就对词元嵌入做归一化（编码器则在之后）；transviz 的模型在两个堆栈中都在之后归一化</translation>
    </message>
    <message>
        <source>{0} is an LED model: its encoder attends within a sliding window plus a few global tokens; transviz's attention reads every position</source>
        <translation>{0} 是 LED 模型：它的编码器只在滑动窗口内和少数全局词元上计算注意力；transviz 的注意力读取每个位置</translation>
    </message>
    <message>
        <source>{0} is a BigBird-Pegasus model: its encoder attends to random, window and global blocks; transviz's attention reads every position</source>
        <translation>{0} 是 BigBird-Pegasus 模型：它的编码器只关注随机块、窗口块和全局块；transviz 的注意力读取每个位置</translation>
    </message>
    <message>
        <source>{0} is a PEGASUS-X model: its encoder attends within staggered blocks plus global tokens; transviz's attention reads every position</source>
        <translation>{0} 是 PEGASUS-X 模型：它的编码器只在交错的块内和全局词元上计算注意力；transviz 的注意力读取每个位置</translation>
    </message>
    <message>
        <source>{0} is a ProphetNet model: its decoder predicts several future tokens in parallel streams with relative positions; transviz's decoder predicts the next token</source>
        <translation>{0} 是 ProphetNet 模型：它的解码器用相对位置在并行的流中同时预测后面的多个词元；transviz 的解码器预测下一个词元</translation>
    </message>
    <message>
        <source>{0} is a mixture-of-experts model: it sends each token to one of several feed-forward networks; transviz's layers have one</source>
        <translation>{0} 是混合专家模型：它把每个词元送到几个前馈网络中的一个；transviz 的每层只有一个前馈网络</translation>
    </message>
    <message>
        <source>{0} is a UMT5 model: each of its layers learns its own relative-position buckets; transviz's T5 layers share one table per stack, as T5's do</source>
        <translation>{0} 是 UMT5 模型：它的每一层学习自己的相对位置桶；transviz 的 T5 层像 T5 一样每个层栈共用一张表</translation>
    </message>
    <message>
        <source>{0} is a LongT5 model: its encoder attends within local blocks plus transient global tokens; transviz's attention reads every position</source>
        <translation>{0} 是 LongT5 模型：它的编码器在局部块内并借助临时全局词元计算注意力；transviz 的注意力读取每个位置</translation>
    </message>
    <message>
        <source>{0} joins two separately built models (an EncoderDecoderModel); transviz reads encoder-decoders built as one</source>
        <translation>{0} 把两个分别构建的模型拼在一起（EncoderDecoderModel）；transviz 读取作为一个整体构建的编码器-解码器</translation>
    </message>
    <message>
        <source>{0} is a folder, not a checkpoint file: name a {1} file in it, or a folder a Hugging Face model was saved in (it has no {2})</source>
        <translation>{0} 是文件夹，不是检查点文件：请指定其中的 {1} 文件，或一个保存了 Hugging Face 模型的文件夹（此文件夹中没有 {2}）</translation>
    </message>
    <message>
        <source>model config</source>
        <translation>模型配置</translation>
    </message>
    <message>
        <source>{0} is not readable JSON ({1})</source>
        <translation>{0} 不是可读取的 JSON（{1}）</translation>
    </message>
    <message>
        <source>{0} holds its weights only in {1}, a pickle, which transviz never loads; save the model again with save_pretrained(folder, safe_serialization=True) to write {2}</source>
        <translation>{0} 的权重只保存在 {1} 中，这是 pickle 文件，transviz 从不加载；请用 save_pretrained(folder, safe_serialization=True) 重新保存模型，以写出 {2}</translation>
    </message>
    <message>
        <source>{0} has neither {1} nor {2}: a model saved with save_pretrained has one of them</source>
        <translation>{0} 中既没有 {1} 也没有 {2}：用 save_pretrained 保存的模型必有其一</translation>
    </message>
    <message>
        <source>shard index</source>
        <translation>分片索引</translation>
    </message>
    <message>
        <source>{0}: its weight_map must name each tensor's shard</source>
        <translation>{0}：其 weight_map 必须为每个张量指明所在的分片</translation>
    </message>
    <message>
        <source>{0}: shard {1} must be a .safetensors file in the model's folder</source>
        <translation>{0}：分片 {1} 必须是模型文件夹中的 .safetensors 文件</translation>
    </message>
    <message>
        <source>opening a Hugging Face model needs the transformers package: {0}</source>
        <translation>打开 Hugging Face 模型需要 transformers 包：{0}</translation>
    </message>
    <message>
        <source>{0}: {1} and {2} differ; transviz's encoder and decoder have the same sizes</source>
        <translation>{0}：{1} 与 {2} 不同；transviz 的编码器和解码器尺寸相同</translation>
    </message>
    <message>
        <source>{0}: activation {1} is not one transviz has ({2})</source>
        <translation>{0}：transviz 没有激活函数 {1}（它有 {2}）</translation>
    </message>
    <message>
        <source>{0}: {1} is {2}, outside the vocabulary of {3}</source>
        <translation>{0}：{1} 为 {2}，超出了 {3} 个词元的词表</translation>
    </message>
    <message>
        <source>generation config</source>
        <translation>生成配置</translation>
    </message>
    <message>
        <source>{0}: forced_eos_token_id is {1}, not the end token {2}</source>
        <translation>{0}：forced_eos_token_id 为 {1}，不是结束词元 {2}</translation>
    </message>
    <message>
        <source>{0}: bad_words_ids must be a list of lists of token ids</source>
        <translation>{0}：bad_words_ids 必须是由词元编号列表组成的列表</translation>
    </message>
    <message>
        <source>{0}: its positions count from its padding id {1} + 1; transviz's fairseq table counts from 2 (padding id 1)</source>
        <translation>{0}：它的位置从填充编号 {1} + 1 开始计数；transviz 的 fairseq 位置表从 2 开始计数（填充编号为 1）</translation>
    </message>
    <message>
        <source>{0}: the model's sizes do not make a model: {1}</source>
        <translation>{0}：这些模型尺寸构不成一个模型：{1}</translation>
    </message>
    <message>
        <source>{0}: the {1} token id is {2}, outside the vocabulary of {3}</source>
        <translation>{0}：{1} 词元的编号是 {2}，超出了 {3} 个词元的词表</translation>
    </message>
    <message>
        <source>{0}: padding, end and unknown share a token id</source>
        <translation>{0}：填充、结束和未知词元使用了同一个词元编号</translation>
    </message>
    <message>
        <source>{0} has no tensor {1}</source>
        <translation>{0} 中没有张量 {1}</translation>
    </message>
    <message>
        <source>{0}: tensor {1} holds {2}, not floating-point weights</source>
        <translation>{0}：张量 {1} 存的是 {2}，不是浮点权重</translation>
    </message>
    <message>
        <source>{0}: tensor {1} has shape {2}, the config needs {3}</source>
        <translation>{0}：张量 {1} 的形状是 {2}，配置需要 {3}</translation>
    </message>
    <message>
        <source>{0} holds {1} layer {2}, but config.json gives the {1} {3} layers</source>
        <translation>{0} 含有 {1} 的第 {2} 层，但 config.json 给 {1} 的只有 {3} 层</translation>
    </message>
    <message>
        <source>{0}: tensor {1} is not the sine table of positions its model type adds</source>
        <translation>{0}：张量 {1} 不是这种模型类型所加的正弦位置表</translation>
    </message>
    <message>
        <source>{0}: the tokenizer gives ids up to {1}, but the model's vocabulary holds {2}</source>
        <translation>{0}：分词器给出的编号最大到 {1}，但模型的词表只有 {2} 个</translation>
    </message>
    <message>
        <source>{0}: transformers could not read it ({1})</source>
        <translation>{0}：transformers 无法读取它（{1}）</translation>
    </message>
    <message>
        <source>{0} holds layer {1}, but config.json gives {2} layers</source>
        <translation>{0} 含有第 {1} 层，但 config.json 只给出 {2} 层</translation>
    </message>
    <message>
        <source>{0} is {1} GB; transviz reads models far smaller</source>
        <translation>{0} 有 {1} GB；transviz 读取的模型要小得多</translation>
    </message>
    <message>
        <source>{0} has shape {1}, not (positions, {2})</source>
        <translation>{0} 的形状为 {1}，而不是 (位置数, {2})</translation>
    </message>
    <message>
        <source>{0} is not the sinusoidal table (sin in even columns, cos in odd ones) that transviz adds</source>
        <translation>{0} 不是 transviz 所加的正弦位置表（偶数列为 sin，奇数列为 cos）</translation>
    </message>
    <message>
        <source>{0} has shape {1}, the sidecar's sizes need {2}</source>
        <translation>{0} 的形状为 {1}，说明文件中的尺寸要求 {2}</translation>
    </message>
    <message>
        <source>{0} has no sidecar {1} beside it</source>
        <translation>{0} 旁边没有说明文件 {1}</translation>
    </message>
    <message>
        <source>{0}: a transviz checkpoint's name ends with {1}</source>
        <translation>{0}：transviz 检查点的文件名以 {1} 结尾</translation>
    </message>
    <message>
        <source>{0} holds the PyTorch weights; write the transviz checkpoint to another file</source>
        <translation>{0} 存放着 PyTorch 权重；请把 transviz 检查点写到另一个文件</translation>
    </message>
    <message>
        <source>layer {0} does not exist: the {1} attention of this model has layers 0..{2}</source>
        <translation>第 {0} 层不存在：这个模型的 {1} 注意力只有第 0..{2} 层</translation>
    </message>
    <message>
        <source>with rotary positions a self-attention score is a different bilinear form for each distance between query and key, not one W_Z: choose cross-attention, which has no positions</source>
        <translation>使用旋转位置编码时，自注意力分数对查询与键之间的每个距离都是不同的双线性型，而不是一个 W_Z：请选择交叉注意力，它没有位置信息</translation>
    </message>
    <message>
        <source>{0}: its {1} heads of {2} dimensions make {3}, not its width {4}; transviz's heads split the width</source>
        <translation>{0}：它的 {1} 个 {2} 维的头合起来是 {3}，而不是它的宽度 {4}；transviz 的头平分宽度</translation>
    </message>
    <message>
        <source>a block holds 1 to {0} keys, got {1}</source>
        <translation>一个块含 1 到 {0} 个键，得到的是 {1}</translation>
    </message>
    <message>
        <source>this model's positions are {0}, not {1}</source>
        <translation>此模型的位置是 {0}，不是 {1}</translation>
    </message>
    <message>
        <source>positions must be 1 to {0}, this model's limit; got {1}</source>
        <translation>位置数必须在 1 到 {0}（此模型的上限）之间；得到的是 {1}</translation>
    </message>
    <message>
        <source>choose {0} to {1} models to decode side by side, not {2}</source>
        <translation>请选择 {0} 到 {1} 个模型并排解码，而不是 {2} 个</translation>
    </message>
    <message>
        <source>{0} cannot decode this sentence: {1}</source>
        <translation>{0} 无法解码这个句子：{1}</translation>
    </message>
    <message>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <source>nothing is written yet: step once to see what each layer would write</source>
        <translation>还没有写出任何词元：先单步一次，再看每一层会写什么</translation>
    </message>
    <message>
        <source>{0} and {1} go together: a corpus and its file of alignments</source>
        <translation>{0} 和 {1} 要一起给出：语料和它的对齐文件</translation>
    </message>
    <message>
        <source>the two sentences give the same token ({0}) at step {1}: nothing to move; after A's output they differ at steps {2}</source>
        <translation>两个句子在第 {1} 步给出同一个词元（{0}）：没有可移动的差别；沿着 A 的输出，它们在第 {2} 步不同</translation>
    </message>
    <message>
        <source>the two sentences give the same token ({0}) at step {1}: nothing to move; after A's output they give the same token at every step</source>
        <translation>两个句子在第 {1} 步给出同一个词元（{0}）：没有可移动的差别；沿着 A 的输出，它们每一步都给出同一个词元</translation>
    </message>
    <message>
        <source>A has {0} source tokens and B {1}: a position of one is not a position of the other; choose sentences of one length, or patch a head or the decoder</source>
        <translation>A 有 {0} 个源语言词元，B 有 {1} 个：一个句子的位置不是另一个句子的位置；请选择长度相同的句子，或者修补一个头或解码器</translation>
    </message>
    <message>
        <source>no cell ({0}, {1}) to patch: layers 0 to {2}, columns 0 to {3}</source>
        <translation>没有可修补的单元格（{0}, {1}）：层为 0 到 {2}，列为 0 到 {3}</translation>
    </message>
    <message>
        <source>unknown patch kind {0}; choose one of {1}</source>
        <translation>未知的修补类型 {0}；请选择 {1} 之一</translation>
    </message>
    <message>
        <source>sentence {0} is empty: patching needs two sentences</source>
        <translation>句子 {0} 是空的：修补需要两个句子</translation>
    </message>
    <message>
        <source>step {0} is beyond A's output: it wrote {1} tokens (steps 0 to {2})</source>
        <translation>第 {0} 步超出了 A 的输出：它写了 {1} 个词元（第 0 到 {2} 步）</translation>
    </message>
    <message>
        <source>line {0} of {1}: {2} is not a link; write pairs of token numbers counted from 0, source-target, like 0-0 1-2 (0p1 or 0?1 for a possible link)</source>
        <translation>{1} 的第 {0} 行：{2} 不是一个链接；请写从 0 数起的词元编号对，源-目标，如 0-0 1-2（可能的链接写 0p1 或 0?1）</translation>
    </message>
    <message>
        <source>line {0} of {1}: the link {2} names token {3}; a sentence holds at most {4} tokens</source>
        <translation>{1} 的第 {0} 行：链接 {2} 指向词元 {3}；一个句子最多有 {4} 个词元</translation>
    </message>
    <message>
        <source>{0} has more than {1} lines; transviz reads alignments of up to that many sentences</source>
        <translation>{0} 超过 {1} 行；transviz 最多读取这么多句子的对齐</translation>
    </message>
    <message>
        <source>line {0} of {1} is longer than {2} MB: no sentence pair has that many links</source>
        <translation>{1} 的第 {0} 行超过 {2} MB：没有哪个句对有这么多链接</translation>
    </message>
    <message>
        <source>line {0} of {1}: byte {2} is not text ({3}); a file of alignments holds links like 0-0 1-2</source>
        <translation>{1} 的第 {0} 行：字节 {2} 不是文本（{3}）；对齐文件里应是 0-0 1-2 这样的链接</translation>
    </message>
    <message>
        <source>line {0} of {1} holds control characters ({2}); a file of alignments holds links like 0-0 1-2</source>
        <translation>{1} 的第 {0} 行含有控制字符（{2}）；对齐文件里应是 0-0 1-2 这样的链接</translation>
    </message>
    <message>
        <source>{0} has {1} lines but {2} has {3}: each line of the corpus needs its line of alignments (an empty one for none)</source>
        <translation>{0} 有 {1} 行，但 {2} 有 {3} 行：语料的每一行都需要对应的一行对齐（没有对齐就留空行）</translation>
    </message>
    <message>
        <source>line {0} of {1}: the link {2}-{3} is past its sentence, whose source has {4} tokens and target {5} (counted from 0: the last are {6}-{7})</source>
        <translation>{1} 的第 {0} 行：链接 {2}-{3} 超出了句子范围，其源句有 {4} 个词元、目标句有 {5} 个（从 0 数起：最后一个是 {6}-{7}）</translation>
    </message>
</context>
<context>
    <name>CostView</name>
    <message>
        <source>Once the model is large, what really consumes the compute (FLOPS) is still the MLP (FFN); self-attention (attn) and multi-head attention (MHA) take only a small part. The time complexity of MHA is n x m x l.</source>
        <translation>当模型大了后，真正消耗算力（FLOPS）的，还是 MLP（FFN），自注意力（attn）和多头（MHA）只占小部分。MHA 的时间复杂度 n x m x l。</translation>
    </message>
    <message>
        <source>One teacher-forced pass of this sentence. Blue: its FLOPs (a product of (m, k) and (k, n) matrices counts 2mkn, as torch counts; lookups, softmax and LayerNorm etc., with the residual additions and masks, count 0). Orange: its measured time, each piece run by itself (median of {0} runs, one thread). At this tiny size time is not where the FLOPs are: every piece pays a fixed overhead of Python and dispatch. Below: the FFN's share as the model widens; the n x m x l products grow with the sentence's length.</source>
        <translation>这个句子的一次强制教学前向计算。蓝色：浮点运算量（(m, k) 与 (k, n) 矩阵相乘记 2mkn，与 torch 的计法相同；查表、softmax、层归一化等，连同残差相加和掩码，都记 0）。橙色：实测时间，每一部分单独运行计时（{0} 次的中位数，单线程）。在这么小的模型上，时间并不花在浮点运算所在之处：每一部分都要付出 Python 与调度的固定开销。下方：模型变宽时 FFN 所占的份额；n x m x l 乘积随句子长度增长。</translation>
    </message>
    <message>
        <source>Of attention only the n x m x l products (QK^T and weights x V) are small: {0:.1%} of these FLOPs; its Q, K, V and output projections take {1:.1%}, the FFN {2:.1%}.</source>
        <translation>注意力中只有 n x m x l 乘积（QK^T 与 权重 x V）占得少：只占这些浮点运算的 {0:.1%}；注意力的 Q、K、V 投影和输出投影占 {1:.1%}，FFN 占 {2:.1%}。</translation>
    </message>
    <message>
        <source>embedding</source>
        <translation>词嵌入</translation>
    </message>
    <message>
        <source>Q, K, V</source>
        <translation>Q、K、V</translation>
    </message>
    <message>
        <source>QK^T</source>
        <translation>QK^T</translation>
    </message>
    <message>
        <source>softmax</source>
        <translation>softmax</translation>
    </message>
    <message>
        <source>weights x V</source>
        <translation>权重 x V</translation>
    </message>
    <message>
        <source>out proj.</source>
        <translation>输出投影</translation>
    </message>
    <message>
        <source>FFN</source>
        <translation>FFN</translation>
    </message>
    <message>
        <source>output layer</source>
        <translation>输出层</translation>
    </message>
    <message>
        <source>One pass, {0} source and {1} decoder tokens: {2:.2f} MFLOPs, FFN {3:.0%}</source>
        <translation>一次前向，源端 {0} 个、解码器 {1} 个词元：{2:.2f} MFLOPs，FFN 占 {3:.0%}</translation>
    </message>
    <message>
        <source>d_model (d_ff = 4 d_model)</source>
        <translation>d_model（d_ff = 4 d_model）</translation>
    </message>
    <message>
        <source>share of FLOPs</source>
        <translation>FLOPs 占比</translation>
    </message>
    <message>
        <source>enc. layers</source>
        <translation>编码器层数</translation>
    </message>
    <message>
        <source>dec. layers</source>
        <translation>解码器层数</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>source len.</source>
        <translation>源句长度</translation>
    </message>
    <message>
        <source>target len.</source>
        <translation>目标句长度</translation>
    </message>
    <message>
        <source>Reset to the loaded model</source>
        <translation>恢复为已加载的模型</translation>
    </message>
    <message>
        <source>Where the FLOPs and the time go</source>
        <translation>算力与时间花在哪里</translation>
    </message>
    <message>
        <source>LayerNorm etc.</source>
        <translation>LayerNorm 等</translation>
    </message>
    <message>
        <source>Timing a fresh model of these sizes: pass {0} of {1}</source>
        <translation>为这些尺寸新建的模型计时：第 {0} 次，共 {1} 次</translation>
    </message>
    <message>
        <source>Not timed: {0}</source>
        <translation>未计时：{0}</translation>
    </message>
    <message>
        <source>Timing the components: pass {0} of {1}</source>
        <translation>正在为各部分计时：第 {0} / {1} 次</translation>
    </message>
    <message>
        <source>share of measured time</source>
        <translation>实测时间占比</translation>
    </message>
    <message>
        <source>share of the pass (%)</source>
        <translation>占一次前向计算的比例（%）</translation>
    </message>
    <message>
        <source>{0}; too large to time here</source>
        <translation>{0}；太大，这里不计时</translation>
    </message>
    <message>
        <source>{0}; measuring its time...</source>
        <translation>{0}；正在测量耗时……</translation>
    </message>
    <message>
        <source>{0}; {1:.2f} ms, FFN {2:.0%} of the time</source>
        <translation>{0}；{1:.2f} 毫秒，FFN 占时间的 {2:.0%}</translation>
    </message>
    <message>
        <source>{0} (time of {1} and {2} tokens; measuring this length...)</source>
        <translation>{0}（时间为 {1} 个源词元和 {2} 个解码词元时所测；正在测量当前长度……）</translation>
    </message>
    <message>
        <source>share of FLOPs (%)</source>
        <translation>FLOPs 占比（%）</translation>
    </message>
    <message>
        <source>As the model widens (dashed: these sizes)</source>
        <translation>模型变宽时（虚线：这些尺寸）</translation>
    </message>
    <message>
        <source>scores + weights x V (n x m x l)</source>
        <translation>分数 + 权重 x V（n x m x l）</translation>
    </message>
    <message>
        <source>projections, FFN, output (linear)</source>
        <translation>投影、FFN、输出层（线性）</translation>
    </message>
    <message>
        <source>FLOPs of one pass</source>
        <translation>一次前向的 FLOPs</translation>
    </message>
    <message>
        <source>As sentences grow (these sizes; dashed: this length)</source>
        <translation>句子变长时（这些尺寸；虚线：这个长度）</translation>
    </message>
    <message>
        <source>tokens in each sentence (n = m)</source>
        <translation>每句的词元数（n = m）</translation>
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
    <message>
        <source>At the start of the translation: Step (Space) writes the first token.</source>
        <translation>位于翻译的开头：按“单步（空格）”写出第一个词元。</translation>
    </message>
</context>
<context>
    <name>ExplainMenu</name>
    <message>
        <source>Why here? Walk through this query in the Masks tab</source>
        <translation>为什么在这里？在“掩码”标签页中逐步查看这个查询</translation>
    </message>
    <message>
        <source>Right-click a cell of one head (not a summary of heads)</source>
        <translation>请右键单击某一个头的格子（而不是多个头的汇总）</translation>
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
        <source>Quiz mode</source>
        <translation>测验模式</translation>
    </message>
    <message>
        <source>Predict, then reveal (Q): each step is hidden until Enter; 1-9 choose, Right moves on</source>
        <translation>先预测，再揭晓（Q）：每一步在按 Enter 前隐藏；1-9 选择，右方向键继续</translation>
    </message>
    <message>
        <source>No model loaded: Model &gt; Open a checkpoint to explore its decoding.</source>
        <translation>未加载模型：请通过“模型 &gt; 打开检查点”加载模型，探索它的解码过程。</translation>
    </message>
    <message>
        <source>the grid of every layer and head</source>
        <translation>所有层和头的网格</translation>
    </message>
    <message>
        <source>the head shown large</source>
        <translation>放大显示的头</translation>
    </message>
    <message>
        <source>the next-token candidates</source>
        <translation>下一个词元的候选</translation>
    </message>
    <message>
        <source>the beam tree</source>
        <translation>束搜索树</translation>
    </message>
    <message>
        <source>Turn quiz mode off first: stepping through the run would reveal the answer.</source>
        <translation>请先关闭测验模式：逐步播放解码过程会泄露答案。</translation>
    </message>
    <message>
        <source>"{0}" asks about the heads of cross-attention: show cross-attention, with a head of the layer large.</source>
        <translation>“{0}”问的是交叉注意力的头：请显示交叉注意力，并把该层的一个头放大。</translation>
    </message>
    <message>
        <source>"{0}" asks about a head of the decoder: show cross-attention or decoder self-attention, with one of its heads large.</source>
        <translation>“{0}”问的是解码器的一个头：请显示交叉注意力或解码器自注意力，并把其中一个头放大。</translation>
    </message>
    <message>
        <source>"{0}" asks about one head: click a head of the grid to show it large, not the layer's summary.</source>
        <translation>“{0}”问的是单个头：请点击网格中的一个头把它放大，而不是该层的汇总。</translation>
    </message>
    <message>
        <source>hidden until the quiz's answer is revealed</source>
        <translation>揭晓测验答案前隐藏</translation>
    </message>
    <message>
        <source>The next token is hidden: predict it, then Reveal (Enter).</source>
        <translation>下一个词元已隐藏：先预测，再揭晓（Enter）。</translation>
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
        <source>; the target language, which the model is told to write first</source>
        <translation>；这是目标语言，模型被要求首先写出它</translation>
    </message>
    <message>
        <source>; the model predicted '{0}'</source>
        <translation>；模型预测的是“{0}”</translation>
    </message>
    <message>
        <source>; without the interventions the translation had ended before here</source>
        <translation>；没有干预时，译文在此之前就已结束</translation>
    </message>
    <message>
        <source>; without the interventions: '{0}'</source>
        <translation>；没有干预时：'{0}'</translation>
    </message>
    <message>
        <source>; the same without the interventions</source>
        <translation>；没有干预时也相同</translation>
    </message>
    <message>
        <source>, log p('{0}') {1:+.3f} (from {2:.3f} to {3:.3f})</source>
        <translation>，log p('{0}') {1:+.3f}（从 {2:.3f} 变为 {3:.3f}）</translation>
    </message>
</context>
<context>
    <name>FfnView</name>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>unit</source>
        <translation>单元</translation>
    </message>
    <message>
        <source>tokens (rows)</source>
        <translation>词元（行）</translation>
    </message>
    <message>
        <source>hidden units of the FFN (columns)</source>
        <translation>FFN 的隐藏单元（列）</translation>
    </message>
    <message>
        <source>{row_name} '{row}', {column_name} {column}: {value}</source>
        <translation>{row_name}“{row}”，{column_name} {column}：{value}</translation>
    </message>
    <message>
        <source>The FFN spindle</source>
        <translation>FFN 纺锤</translation>
    </message>
    <message>
        <source>A feature of the Transformer is its spindle-shaped FFN: it first raises the dimension, then lowers it again. Why this is done and what it gains has no clear answer yet, but it has been found to work better.</source>
        <translation>Transformer的一个特点是纺锤状的FFN，即先升维再降维。为什么要这样做，好处是什么？这个问题目前还没有非常明确的答案，但人们确实发现了他在效果上有优势。</translation>
    </message>
    <message>
        <source>Each row is one token, each column one of the d_ff hidden units after the activation; the bars give the share of units each token switches on.</source>
        <translation>每一行是一个词元，每一列是激活函数之后 d_ff 个隐藏单元中的一个；柱状图给出每个词元激活的单元比例。</translation>
    </message>
    <message>
        <source>encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>{0} layer {1}: d_model {2} -&gt; d_ff {3} ({4}) -&gt; d_model {2}</source>
        <translation>{0}第 {1} 层：d_model {2} -&gt; d_ff {3}（{4}）-&gt; d_model {2}</translation>
    </message>
    <message>
        <source>activation</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>share of units &gt; 0</source>
        <translation>大于 0 的单元比例</translation>
    </message>
    <message>
        <source>Units switched on, per token (mean {0:.0%})</source>
        <translation>每个词元激活的单元（平均 {0:.0%}）</translation>
    </message>
    <message>
        <source>Strongest units per token:</source>
        <translation>每个词元最强的单元：</translation>
    </message>
</context>
<context>
    <name>FlashView</name>
    <message>
        <source>after</source>
        <translation>之后</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>the output after each block of keys (rows; last: softmax @ V)</source>
        <translation>每个键块之后的输出（行；最后一行：softmax @ V）</translation>
    </message>
    <message>
        <source>dimensions of d_k (columns)</source>
        <translation>d_k 的维度（列）</translation>
    </message>
    <message>
        <source>{row_name} {row}, {column_name} {column}: {value}</source>
        <translation>{row_name} {row}，{column_name} {column}：{value}</translation>
    </message>
    <message>
        <source>Keys per block: a fused kernel's tile of keys</source>
        <translation>每块的键数：融合内核一次处理的一块键</translation>
    </message>
    <message>
        <source>Keys per block:</source>
        <translation>每块的键数：</translation>
    </message>
    <message>
        <source>The online softmax (FlashAttention)</source>
        <translation>在线 softmax（FlashAttention）</translation>
    </message>
    <message>
        <source>Fused attention kernels (FlashAttention, torch's scaled_dot_product_attention) never hold a row of weights: they read the keys block by block and keep only the largest score so far, the sum of exponentials below it and the weighted sum of values, rescaling both when a larger score arrives. The output is exactly softmax(QK^T) V, but a tool that runs them has no attention map to show unless it computes QK^T and the softmax again, as transviz does.</source>
        <translation>融合注意力内核（FlashAttention、torch 的 scaled_dot_product_attention）从不保存一行权重：它们一块一块地读取键，只保留目前最大的分数、以它为基准的指数和，以及值的加权和，遇到更大的分数时把两者重新缩放。输出恰好是 softmax(QK^T) V，但运行这些内核的工具没有注意力图可画，除非像 transviz 这样重新计算 QK^T 和 softmax。</translation>
    </message>
    <message>
        <source>The current query's output after each block of keys, and the running maximum and sum.</source>
        <translation>当前查询在每个键块之后的输出，以及累计最大值和累计和。</translation>
    </message>
    <message>
        <source>Query '{0}': its output after each block of {1} keys (rows), the last row softmax(row) @ V computed the ordinary way; the blocks' final output differs from it by {2:.1e}. Right: the running maximum (blue) and the running sum of exp(score - maximum) (orange) after each block.</source>
        <translation>查询“{0}”：每个含 {1} 个键的块之后的输出（行），最后一行是用普通方法计算的 softmax(行) @ V；各块最终的输出与它相差 {2:.1e}。右：每块之后的累计最大值（蓝色）和 exp(分数 - 最大值) 的累计和（橙色）。</translation>
    </message>
    <message>
        <source>keys 1-{0}</source>
        <translation>键 1-{0}</translation>
    </message>
    <message>
        <source>softmax @ V</source>
        <translation>softmax @ V</translation>
    </message>
    <message>
        <source>Head {0}, query '{1}': the output as the blocks arrive</source>
        <translation>头 {0}，查询“{1}”：随着各块到来的输出</translation>
    </message>
    <message>
        <source>after block</source>
        <translation>块之后</translation>
    </message>
    <message>
        <source>running maximum (blue) and sum (orange)</source>
        <translation>累计最大值（蓝色）和累计和（橙色）</translation>
    </message>
    <message>
        <source>{0} keys in {1} blocks. After the last block the output equals softmax(row) @ V within {2:.1e}; the weights themselves, which a map would draw, were never formed.</source>
        <translation>{0} 个键分成 {1} 块。最后一块之后，输出与 softmax(行) @ V 的差在 {2:.1e} 以内；注意力图要画的权重本身从未形成。</translation>
    </message>
</context>
<context>
    <name>HeadGroups</name>
    <message>
        <source>Heads:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>The query heads, framed by the keys and values they share: a frame holds the heads of one key/value head</source>
        <translation>查询头按共享的键和值加框：一个框里是共用同一个键/值头的查询头</translation>
    </message>
    <message>
        <source>Query heads {0} read key/value head {1}</source>
        <translation>查询头 {0} 共用键/值头 {1}</translation>
    </message>
    <message>
        <source>Query head {0} has key/value head {1} to itself</source>
        <translation>查询头 {0} 独占键/值头 {1}</translation>
    </message>
</context>
<context>
    <name>HeadPairWidget</name>
    <message>
        <source>{0}, {1}</source>
        <translation>{0}，{1}</translation>
    </message>
    <message>
        <source>JSD between {0} and {1}: {2:.3f} on this sentence, {3:.3f} over the test sentences (0: the same, 0.69: disjoint).</source>
        <translation>{0} 与 {1} 之间的 JSD：在这个句子上为 {2:.3f}，在测试句子上为 {3:.3f}（0：完全相同，0.69：毫不重叠）。</translation>
    </message>
    <message>
        <source>Replace {1} by {0}</source>
        <translation>用 {0} 替换 {1}</translation>
    </message>
</context>
<context>
    <name>HeadsPanel</name>
    <message>
        <source>exact match (greedy output = reference)</source>
        <translation>完全匹配（贪心输出 = 参考译文）</translation>
    </message>
    <message>
        <source>log-probability of the reference tokens</source>
        <translation>参考译文各词元的对数概率</translation>
    </message>
    <message>
        <source>Measure</source>
        <translation>测量</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Score</source>
        <translation>评分</translation>
    </message>
    <message>
        <source>Switch every head off alone, then one after another (equally important heads in several orders), on the task's test sentences</source>
        <translation>在任务的测试句子上，先逐个单独关闭每个头，再一个接一个地累积关闭（同样重要的头按几种顺序分别试）</translation>
    </message>
    <message>
        <source>Press Measure: each head of the model is switched off alone, then one after another, on the task's test sentences. Heads equally important alone go in layer and head order for the curve and in several random orders for the band around it, since how many heads can go may depend on that order. On a busy laptop this takes minutes: the bar shows how far it is and the time left.</source>
        <translation>按“测量”：在任务的测试句子上，先逐个单独关闭模型的每个头，再一个接一个地关闭。单独关闭时同样重要的头，曲线按层和头的编号顺序关闭，曲线周围的色带则按几种随机顺序关闭，因为能关闭多少个头可能取决于这个顺序。在繁忙的笔记本电脑上这需要几分钟：进度条显示进度和剩余时间。</translation>
    </message>
    <message>
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>decoder self-attention</source>
        <translation>解码器自注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>{0}: score lost without each head (click: switch it off)</source>
        <translation>{0}：去掉每个头损失的分数（点击：关闭这个头）</translation>
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
        <source>layers (rows)</source>
        <translation>层（行）</translation>
    </message>
    <message>
        <source>heads (columns)</source>
        <translation>头（列）</translation>
    </message>
    <message>
        <source>layer {row}, head {column}: {value}</source>
        <translation>第 {row} 层，头 {column}：{value}</translation>
    </message>
    <message>
        <source>Prune curve: heads switched off, least important first</source>
        <translation>剪枝曲线：从最不重要的头开始依次关闭</translation>
    </message>
    <message>
        <source>heads switched off</source>
        <translation>已关闭的头数</translation>
    </message>
    <message>
        <source>exact match (%)</source>
        <translation>完全匹配（%）</translation>
    </message>
    <message>
        <source>mean log-probability of a reference token</source>
        <translation>参考词元的平均对数概率</translation>
    </message>
    <message>
        <source>score lost (points of exact match)</source>
        <translation>损失的分数（完全匹配的百分点）</translation>
    </message>
    <message>
        <source>score lost (nats per reference token)</source>
        <translation>损失的分数（每个参考词元的奈特数）</translation>
    </message>
    <message>
        <source>{0:+.1f} points</source>
        <translation>{0:+.1f} 个百分点</translation>
    </message>
    <message>
        <source>{0:+.3f} nats</source>
        <translation>{0:+.3f} 奈特</translation>
    </message>
    <message>
        <source>{0}% · about {1} left</source>
        <translation>{0}% · 约剩 {1}</translation>
    </message>
    <message>
        <source>{0}: {1:.3f} with every head, {2:.3f} with all switched off</source>
        <translation>{0}：所有头都在时为 {1:.3f}，全部关闭后为 {2:.3f}</translation>
    </message>
    <message>
        <source>{0}: {1} of {2} heads can be switched off losing less than one point (no two heads are equally important)</source>
        <translation>{0}：{2} 个头中有 {1} 个可以关闭，损失不到一个百分点（没有两个头同样重要）</translation>
    </message>
    <message>
        <source>{0}: {1} of {2} heads can be switched off losing less than one point, in each of {3} orders of the {4} heads whose importance ties with another's</source>
        <translation>{0}：{2} 个头中有 {1} 个可以关闭，损失不到一个百分点；{4} 个重要性与别的头相同的头按 {3} 种顺序排列，结果都一样</translation>
    </message>
    <message>
        <source>{0}: {1} to {2} of {3} heads can be switched off losing less than one point, depending on the order of the {4} heads whose importance ties with another's ({5} orders tried; the curve's, layer and head order, gives {6})</source>
        <translation>{0}：{3} 个头中有 {1} 到 {2} 个可以关闭，损失不到一个百分点，取决于 {4} 个重要性与别的头相同的头的先后顺序（试了 {5} 种顺序；曲线所用的按层和头编号的顺序得到 {6} 个）</translation>
    </message>
    <message>
        <source>{0}, layer {1}, head {2} is switched off in the explorer</source>
        <translation>{0}第 {1} 层头 {2} 已在探索页中关闭</translation>
    </message>
</context>
<context>
    <name>HeatmapWidget</name>
    <message>
        <source>hidden until you answer</source>
        <translation>回答前隐藏</translation>
    </message>
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
        <source>{row_name} '{row}' -&gt; {column_name} '{column}': {value}</source>
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
        <source>grey hatched cells: masked ({0})</source>
        <translation>灰色斜线格：已掩码（{0}）</translation>
    </message>
    <message>
        <source>cells with ?: {0}</source>
        <translation>带 ? 的格：{0}</translation>
    </message>
    <message>
        <source>Ctrl + wheel: zoom in or out. Zoomed in, the wheel scrolls up and down, Shift + wheel left and right. Double-click: the whole map again.</source>
        <translation>Ctrl + 滚轮：放大或缩小。放大后，滚轮上下滚动，Shift + 滚轮左右滚动。双击：重新显示整张图。</translation>
    </message>
</context>
<context>
    <name>HullView</name>
    <message>
        <source>Outputs in the values' hull</source>
        <translation>输出落在值的凸包里</translation>
    </message>
    <message>
        <source>The third reading projects the query into the convex region where the values lie. The space the normalised coefficients span is convex: with sum_i a_i = 1 and a_i &gt;= 0, the set of sum_i a_i V_i is a convex region, so the segment between any two of its points stays inside it. In one attention module there are many queries but one fixed set of values, so the region is fixed, and attention can be read as projecting the queries into it. This helps in several ways: first, the region is small and compact; second, it generalises and fits more easily (convex regions tend to have simpler shapes).</source>
        <translation>第三种理解是把query投影到value所在的凸区域里面。首先我们要知道归一化系数所张成的空间是凸区域，即$\sum_i \alpha_i=1,\alpha_i&gt;=0$的情况下，$\sum_i \alpha_i V_i$构成的集合是凸区域，即任意区域内两点间的连线上的点还在区域内。设想在一个attention模块中，query有多个，但value是固定的一组，那么对应的凸区域是固定的，所以attention也可以理解为把query投影到这个凸区域里面。这样做有多方面的好处，第一是区域小且紧凑，第二是更容易泛化和拟合（凸区域往往形况更简单）。</translation>
    </message>
    <message>
        <source>The head's value vectors (blue, labelled by their key token) in the plane of their two principal axes, their convex hull, and each query's output weights @ V (orange; the current query in red): every output lies inside the hull.</source>
        <translation>该头的值向量（蓝色，标注对应的键词元）投影到它们的两个主轴所在的平面上，它们的凸包，以及每个查询的输出 weights @ V（橙色；当前查询为红色）：每个输出都落在凸包内。</translation>
    </message>
    <message>
        <source>principal axis 1</source>
        <translation>主轴 1</translation>
    </message>
    <message>
        <source>principal axis 2</source>
        <translation>主轴 2</translation>
    </message>
    <message>
        <source>Head {0}: values (blue), outputs (orange); the current query's output is {1}</source>
        <translation>头 {0}：值（蓝色），输出（橙色）；当前查询的输出{1}</translation>
    </message>
    <message>
        <source>Head {0}: values (blue), outputs (orange), the output of the current query '{1}' (red)</source>
        <translation>头 {0}：值（蓝色），输出（橙色），当前查询“{1}”的输出（红色）</translation>
    </message>
    <message>
        <source>The two axes keep {0:.0%} of the values' variance; {1} values span a hull of {2} corners, and {3} of the {4} outputs lie inside it.</source>
        <translation>这两个轴保留了值的方差的 {0:.0%}；{1} 个值张成一个有 {2} 个顶点的凸包，{4} 个输出中有 {3} 个落在其中。</translation>
    </message>
</context>
<context>
    <name>InterventionBar</name>
    <message>
        <source>Interventions:</source>
        <translation>干预：</translation>
    </message>
    <message>
        <source>Clear all</source>
        <translation>全部清除</translation>
    </message>
    <message>
        <source>Remove every intervention (Ctrl+Z undoes it)</source>
        <translation>移除所有干预（Ctrl+Z 可撤销）</translation>
    </message>
    <message>
        <source>Attention changed for an experiment (right-click a head to add one; Ctrl+Z undoes the last change). Edited heads are framed in blue; output tokens that differ from the unmodified model's are blue</source>
        <translation>为实验而改变的注意力（右键单击一个头即可添加；Ctrl+Z 撤销上一次更改）。被修改的头带蓝色边框；与未修改模型的输出不同的词元显示为蓝色</translation>
    </message>
    <message>
        <source>Remove this intervention</source>
        <translation>移除此干预</translation>
    </message>
</context>
<context>
    <name>InterventionMenu</name>
    <message>
        <source>× {0}</source>
        <translation>× {0}</translation>
    </message>
    <message>
        <source>Turn off (zero output)</source>
        <translation>关闭（输出置零）</translation>
    </message>
    <message>
        <source>Turn off (uniform attention)</source>
        <translation>关闭（均匀注意力）</translation>
    </message>
    <message>
        <source>Turn off (mean output)</source>
        <translation>关闭（输出取平均值）</translation>
    </message>
    <message>
        <source>Replace by head</source>
        <translation>换成另一个头</translation>
    </message>
    <message>
        <source>Tie Q = K (this head)</source>
        <translation>令 Q = K（此头）</translation>
    </message>
    <message>
        <source>Scale this layer's scores</source>
        <translation>缩放本层的分数</translation>
    </message>
    <message>
        <source>Scale this head's scores</source>
        <translation>缩放本头的分数</translation>
    </message>
</context>
<context>
    <name>JoinDialog</name>
    <message>
        <source>Type the address as the teacher's screen shows it. The code may follow it after '#'; otherwise type it below.</source>
        <translation>按老师屏幕上显示的样子输入地址。加入码可以跟在“#”后面；否则请在下面输入。</translation>
    </message>
    <message>
        <source>Join</source>
        <translation>加入</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>加入码</translation>
    </message>
    <message>
        <source>Nickname</source>
        <translation>昵称</translation>
    </message>
    <message>
        <source>Join a class</source>
        <translation>加入课堂</translation>
    </message>
    <message>
        <source>Type the class's address.</source>
        <translation>请输入课堂的地址。</translation>
    </message>
    <message>
        <source>Choose a nickname: the teacher sees it beside your answers.</source>
        <translation>请起一个昵称：老师会在你的答案旁看到它。</translation>
    </message>
    <message>
        <source>Joining...</source>
        <translation>正在加入……</translation>
    </message>
</context>
<context>
    <name>JoinWindow</name>
    <message>
        <source>Join the class</source>
        <translation>加入课堂</translation>
    </message>
    <message>
        <source>Open this address in a browser (phone or laptop) and type the code, or scan the QR code; then choose a nickname. In transviz: File &gt; Join a class.</source>
        <translation>在浏览器（手机或笔记本电脑）中打开这个地址并输入加入码，或扫描二维码；然后起一个昵称。在 transviz 中：文件 &gt; 加入课堂。</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>加入码</translation>
    </message>
    <message>
        <source>transviz: join the class</source>
        <translation>transviz：加入课堂</translation>
    </message>
</context>
<context>
    <name>KVCacheView</name>
    <message>
        <source>cached row</source>
        <translation>缓存的行</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>rows: the source's (computed once), then one per decoder input</source>
        <translation>行：先是源句的（只算一次），然后每个解码器输入一行</translation>
    </message>
    <message>
        <source>dimensions of d_k (columns)</source>
        <translation>d_k 的维度（列）</translation>
    </message>
    <message>
        <source>{row_name} '{row}', {column_name} {column}: {value}</source>
        <translation>{row_name}“{row}”，{column_name} {column}：{value}</translation>
    </message>
    <message>
        <source>The KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>Decoding one token at a time, a Transformer keeps every layer's keys and values: those of the source are computed once per sentence, and each decoder input adds one row of its own, so a step computes only its new position. Grouped-query and multi-query attention share keys and values between query heads, and the cache shrinks by the same factor.</source>
        <translation>逐个词元解码时，Transformer 保存每一层的键和值：源句的每句只算一次，每个解码器输入再添一行自己的，所以每一步只计算新的位置。分组查询和多查询注意力让多个查询头共用键和值，缓存也按同样的比例缩小。</translation>
    </message>
    <message>
        <source>The cached keys of the chosen layer and head, and the cache's bytes.</source>
        <translation>所选层和头缓存的键，以及缓存的字节数。</translation>
    </message>
    <message>
        <source>After {0} decoder inputs the cache holds {1:,} bytes of the decoder's own keys and values ({2:,.0f} per input) and {3:,} bytes from the source, computed once. The cached step's logits equal a full recomputation's within {4:.1e}.</source>
        <translation>读入 {0} 个解码器输入后，缓存中解码器自己的键和值有 {1:,} 字节（每个输入 {2:,.0f}），来自源句的有 {3:,} 字节，只算一次。缓存计算的这一步的 logits 与完整重算的相差在 {4:.1e} 以内。</translation>
    </message>
    <message>
        <source>source: {0}</source>
        <translation>源句：{0}</translation>
    </message>
    <message>
        <source>shared by query heads {0}-{1}</source>
        <translation>由查询头 {0}-{1} 共用</translation>
    </message>
    <message>
        <source>query head {0}'s own</source>
        <translation>查询头 {0} 自己的</translation>
    </message>
    <message>
        <source>Decoder layer {0}, key/value head {1} ({2}): its cached keys</source>
        <translation>解码器第 {0} 层，键/值头 {1}（{2}）：它缓存的键</translation>
    </message>
    <message>
        <source>this model</source>
        <translation>此模型</translation>
    </message>
    <message>
        <source>bytes per decoder input</source>
        <translation>每个解码器输入的字节数</translation>
    </message>
    <message>
        <source>Bytes each decoder input adds to the cache</source>
        <translation>每个解码器输入给缓存增加的字节数</translation>
    </message>
    <message>
        <source>Measured from the caches' own tensors: multi-head (default) {0}, grouped-query (gqa, 2 key/value heads) {1}, multi-query (mqa, 1) {2} bytes per token.</source>
        <translation>从各缓存自身的张量量得：多头（default）每个词元 {0} 字节，分组查询（gqa，2 个键/值头）{1} 字节，多查询（mqa，1 个）{2} 字节。</translation>
    </message>
</context>
<context>
    <name>KnownWords</name>
    <message>
        <source>Words this model knows</source>
        <translation>这个模型认识的词</translation>
    </message>
    <message>
        <source>filter</source>
        <translation>筛选</translation>
    </message>
    <message>
        <source>{0} of {1} words; double-click one to add it to the sentence</source>
        <translation>{1} 个词中的 {0} 个；双击一个词把它加入句子</translation>
    </message>
</context>
<context>
    <name>LabPanel</name>
    <message>
        <source>a whole number</source>
        <translation>整数</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>{0}: '{1}' is not {2}</source>
        <translation>{0}：“{1}”不是{2}</translation>
    </message>
    <message>
        <source>list the values to try, separated by commas</source>
        <translation>列出要尝试的取值，用逗号分隔</translation>
    </message>
    <message>
        <source>initialisation (6 layers, 1% warm-up)</source>
        <translation>初始化（6 层，1% 预热）</translation>
    </message>
    <message>
        <source>depth: 2 layers</source>
        <translation>深度：2 层</translation>
    </message>
    <message>
        <source>batch size 64</source>
        <translation>批大小 64</translation>
    </message>
    <message>
        <source>custom sweep</source>
        <translation>自定义扫描</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Export CSV...</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Plot as PNG...</source>
        <translation>图导出为 PNG…</translation>
    </message>
    <message>
        <source>Plot as SVG...</source>
        <translation>图导出为 SVG…</translation>
    </message>
    <message>
        <source>Experiment</source>
        <translation>实验</translation>
    </message>
    <message>
        <source>Quick preset</source>
        <translation>快速预设</translation>
    </message>
    <message>
        <source>Training steps</source>
        <translation>训练步数</translation>
    </message>
    <message>
        <source>test batches</source>
        <translation>测试批次</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Setting</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>learning rate x warm-up (the tutorial's first table)</source>
        <translation>学习率 x 预热（教程的第一张表）</translation>
    </message>
    <message>
        <source>post-LN or pre-LN, with and without warm-up (beyond the tutorial)</source>
        <translation>后置 LN 或前置 LN，有无预热（超出教程）</translation>
    </message>
    <message>
        <source>The tutorial's setting</source>
        <translation>教程的设置</translation>
    </message>
    <message>
        <source>{0} steps and {1} test batches: fast on a classroom CPU, but not the tutorial's setting</source>
        <translation>{0} 步训练、{1} 个测试批次：在教室的 CPU 上也很快，但不是教程的设置</translation>
    </message>
    <message>
        <source>time</source>
        <translation>用时</translation>
    </message>
    <message>
        <source>test loss (½ MSE)</source>
        <translation>测试损失（½ MSE）</translation>
    </message>
    <message>
        <source>tutorial's value</source>
        <translation>教程中的数值</translation>
    </message>
    <message>
        <source>note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Training loss of each run (log scale)</source>
        <translation>每次运行的训练损失（对数坐标）</translation>
    </message>
    <message>
        <source>loss (half the MSE)</source>
        <translation>损失（MSE 的一半）</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>predicting the mean: 3.5</source>
        <translation>预测均值：3.5</translation>
    </message>
    <message>
        <source>The tables of the tutorial "Transformer简述" (Fudan, 2022-09-27), section "预训练的意义": without pre-training a Transformer is hard to train. A stack of encoder layers learns y = (a+1)² + b element by element from x = [a, b] (a and b standard normal, 10 x 50 values each). Each run is scored by its test loss, the tutorial's loss 0.5·(y − prediction)² averaged over fresh batches without updates: half the mean squared error (the tutorial's tables head it "MSE"). Predicting the mean of y for every input scores 3.5 (half the variance of y: 0.5 x (6 + 1)), so a run that ends near 3.5 is stuck: it learned nothing. As in the tutorial's script, attention runs across the batch dimension, not the sequence: each sample attends to the other samples of its batch. The target is computed element by element, so the task needs no attention at all; what the tables show is how hard the stack is to optimise.</source>
        <translation>教程《Transformer简述》（复旦，2022-09-27）“预训练的意义”一节中的表格：不经预训练，Transformer 很难训练。一个编码器层堆栈从 x = [a, b] 逐元素学习 y = (a+1)² + b（a 和 b 服从标准正态分布，各 10 x 50 个值）。每次运行以测试损失评分，即教程的损失 0.5·(y − 预测)² 在不更新参数的新批次上的平均：均方误差的一半（教程的表格把它标为“MSE”）。对每个输入都预测 y 的均值得分 3.5（y 方差的一半：0.5 x (6 + 1)），所以停在 3.5 附近的运行是卡住了：它什么也没学到。与教程的脚本一样，注意力作用在批次维度上，而不是序列上：每个样本关注同一批次中的其他样本。目标是逐元素计算的，所以这个任务根本不需要注意力；表格显示的是这个堆栈有多难优化。</translation>
    </message>
    <message>
        <source>learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>warm-up (share of lr added per step)</source>
        <translation>预热（每步增加的学习率比例）</translation>
    </message>
    <message>
        <source>initialisation</source>
        <translation>初始化</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>Values separated by commas; initialisations as default, xavier_uniform, normal:0.02, uniform:0.01 ...</source>
        <translation>用逗号分隔的取值；初始化写作 default、xavier_uniform、normal:0.02、uniform:0.01 …</translation>
    </message>
    <message>
        <source>Custom sweep: vary one setting, keep the others</source>
        <translation>自定义扫描：改变一项设置，其余保持不变</translation>
    </message>
    <message>
        <source>values</source>
        <translation>取值</translation>
    </message>
    <message>
        <source>Vary</source>
        <translation>改变</translation>
    </message>
    <message>
        <source>lr</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>warm-up</source>
        <translation>预热</translation>
    </message>
    <message>
        <source>init</source>
        <translation>初始化</translation>
    </message>
    <message>
        <source>batch</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>Others</source>
        <translation>其余</translation>
    </message>
    <message>
        <source>the tutorial's setting: its numbers are comparable</source>
        <translation>教程的设置：结果可以与它的数字比较</translation>
    </message>
    <message>
        <source>quick preset: NOT the tutorial's setting ({0} steps, {1} test batches); expect other numbers</source>
        <translation>快速预设：不是教程的设置（{0} 步，{1} 个测试批次）；结果会不同</translation>
    </message>
    <message>
        <source>NOT the tutorial's setting ({0} steps, {1} test batches); expect other numbers</source>
        <translation>不是教程的设置（{0} 步，{1} 个测试批次）；结果会不同</translation>
    </message>
    <message>
        <source>estimated run time: measuring this machine...</source>
        <translation>预计运行时间：正在测量本机速度...</translation>
    </message>
    <message>
        <source>{0} min</source>
        <translation>{0} 分钟</translation>
    </message>
    <message>
        <source>{0} s</source>
        <translation>{0} 秒</translation>
    </message>
    <message>
        <source>estimated run time: about {0} for {1} runs (from runs timed on this machine)</source>
        <translation>预计运行时间：{1} 次运行约 {0}（根据在本机上计时的运行估算）</translation>
    </message>
    <message>
        <source>lr and warm-up must be numbers (like 1e-3 and 0.01)</source>
        <translation>学习率和预热必须是数字（如 1e-3 和 0.01）</translation>
    </message>
    <message>
        <source>Custom sweep: {0}</source>
        <translation>自定义扫描：{0}</translation>
    </message>
    <message>
        <source>starting...</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>cancelling after this batch...</source>
        <translation>本批次结束后取消…</translation>
    </message>
    <message>
        <source>run {0} of {1}: {2}, step {3}</source>
        <translation>第 {0} 次运行（共 {1} 次）：{2}，第 {3} 步</translation>
    </message>
    <message>
        <source>about {0} left · {1}</source>
        <translation>约剩 {0} · {1}</translation>
    </message>
    <message>
        <source>stopped (cancelled)</source>
        <translation>已停止（已取消）</translation>
    </message>
    <message>
        <source>stuck: learned nothing (no better than predicting the mean, 3.5)</source>
        <translation>卡住：什么也没学到（不比预测均值 3.5 好）</translation>
    </message>
    <message>
        <source>diverged: the loss blew up (NaN, infinite or far above 3.5)</source>
        <translation>发散：损失爆炸（NaN、无穷大或远高于 3.5）</translation>
    </message>
    <message>
        <source>cancelled: {0} of {1} runs finished</source>
        <translation>已取消：{1} 次运行中完成了 {0} 次</translation>
    </message>
    <message>
        <source>all {0} runs finished</source>
        <translation>全部 {0} 次运行已完成</translation>
    </message>
    <message>
        <source>Lab: {0}</source>
        <translation>实验室：{0}</translation>
    </message>
    <message>
        <source>stopped by an error</source>
        <translation>因错误而停止</translation>
    </message>
    <message>
        <source>Export results</source>
        <translation>导出结果</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Could not write {0}: {1}</source>
        <translation>无法写入 {0}：{1}</translation>
    </message>
</context>
<context>
    <name>LensView</name>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>decoder layers (rows), each read as if it were the last</source>
        <translation>解码器各层（行），每层都当作最后一层来读</translation>
    </message>
    <message>
        <source>the model's most probable next tokens (columns)</source>
        <translation>模型最可能的下一个词元（列）</translation>
    </message>
    <message>
        <source>{row_name} {row}, {column_name} '{column}': p = {value}</source>
        <translation>{row_name} {row}，{column_name}“{column}”：p = {value}</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>decoder layers (rows)</source>
        <translation>解码器各层（行）</translation>
    </message>
    <message>
        <source>cross-attention heads (columns)</source>
        <translation>交叉注意力头（列）</translation>
    </message>
    <message>
        <source>{row_name} {row}, {column_name} {column}: {value} of the logit</source>
        <translation>{row_name} {row}，{column_name} {column}：占 logit 的 {value}</translation>
    </message>
    <message>
        <source>p over the row's largest</source>
        <translation>p 与该行最大值之比</translation>
    </message>
    <message>
        <source>The logit lens: what each layer would write</source>
        <translation>logit 透镜：每一层会写什么</translation>
    </message>
    <message>
        <source>The decoder's residual stream carries the next token's prediction before the last layer: sent through the final norm and the output layer, each layer's stream already ranks the candidates, and the last layer's ranking is the model's own. The written token's logit is a sum of direct terms, one of them each cross-attention head's output on its way along the residual path.</source>
        <translation>在最后一层之前，解码器的残差流就已经带着对下一个词元的预测：把每一层的残差流送进最后的归一化和输出层，它已经给候选词元排好了顺序，而最后一层的排序就是模型自己的。写出的词元的 logit 是若干直接项之和，其中每个交叉注意力头的输出沿残差路径贡献一项。</translation>
    </message>
    <message>
        <source>Each decoder layer's guess at the next token, and each cross-attention head's direct share of the written token's logit.</source>
        <translation>每个解码器层对下一个词元的猜测，以及每个交叉注意力头在写出词元的 logit 中的直接份额。</translation>
    </message>
    <message>
        <source>from layer {0} on, every layer ranks '{1}' first</source>
        <translation>从第 {0} 层起，每一层都把“{1}”排在第一</translation>
    </message>
    <message>
        <source>no layer but the last ranks '{0}' first</source>
        <translation>除了最后一层，没有哪一层把“{0}”排在第一</translation>
    </message>
    <message>
        <source>The model wrote '{0}' (p = {1:.3f}): {2}. Left: the probability each layer's stream gives the model's final candidates.</source>
        <translation>模型写出了“{0}”（p = {1:.3f}）：{2}。左图：每一层的残差流给模型最终候选词元的概率。</translation>
    </message>
    <message>
        <source>Step in the explorer first: the lens reads the decoder at the step that wrote a token.</source>
        <translation>请先在探索页单步：透镜读取的是写出一个词元的那一步的解码器。</translation>
    </message>
    <message>
        <source>layer {0}: '{1}'</source>
        <translation>第 {0} 层：“{1}”</translation>
    </message>
    <message>
        <source>What each layer would write after '{0}' (its own top token in the row's name; each row coloured to its largest value)</source>
        <translation>在“{0}”之后每一层会写什么（行名里是该层自己排第一的词元；每一行按其最大值着色）</translation>
    </message>
    <message>
        <source>Not for this variant: a decoder-only model's cross-attention is the output rows' share of its one self-attention, whose heads read the source and the output at once; there is no cross-attention head to split off.</source>
        <translation>不适用于这个变体：仅解码器模型的交叉注意力只是它唯一的自注意力中输出行的那一部分，它的头同时读取源句和输出；没有可以单独拆出的交叉注意力头。</translation>
    </message>
    <message>
        <source>Each cross-attention head's direct share of the logit of '{0}'</source>
        <translation>每个交叉注意力头在“{0}”的 logit 中的直接份额</translation>
    </message>
    <message>
        <source>The logit of '{0}' is {1:.2f}: the cross-attention heads add {2:+.2f} directly, the largest layer {3} head {4} ({5:+.2f}); the rest is the embedding, self-attention, the feed-forward networks and the biases ({6:+.2f}). Terms and logit agree within {7:.0e}.</source>
        <translation>“{0}”的 logit 是 {1:.2f}：交叉注意力头直接贡献 {2:+.2f}，最大的是第 {3} 层头 {4}（{5:+.2f}）；其余来自嵌入、自注意力、前馈网络和偏置（{6:+.2f}）。各项之和与 logit 相差不超过 {7:.0e}。</translation>
    </message>
</context>
<context>
    <name>LessonBanner</name>
    <message>
        <source>&lt; Previous</source>
        <translation>&lt; 上一张</translation>
    </message>
    <message>
        <source>The previous slide (PageUp or Left)</source>
        <translation>上一张幻灯片（PageUp 或左方向键）</translation>
    </message>
    <message>
        <source>Next &gt;</source>
        <translation>下一张 &gt;</translation>
    </message>
    <message>
        <source>The next slide (PageDown or Right)</source>
        <translation>下一张幻灯片（PageDown 或右方向键）</translation>
    </message>
    <message>
        <source>Explore (Esc)</source>
        <translation>自由探索 (Esc)</translation>
    </message>
    <message>
        <source>Leave the slides and explore freely; press Esc again to come back to this slide as it was</source>
        <translation>离开幻灯片自由探索；再按 Esc 回到这张幻灯片原来的状态</translation>
    </message>
</context>
<context>
    <name>LessonFiles</name>
    <message>
        <source>Open lesson</source>
        <translation>打开课程</translation>
    </message>
    <message>
        <source>lessons (*.toml)</source>
        <translation>课程 (*.toml)</translation>
    </message>
    <message>
        <source>(none yet)</source>
        <translation>（暂无）</translation>
    </message>
    <message>
        <source>The lesson ended; the window keeps its last slide</source>
        <translation>课程已结束；窗口保留最后一张幻灯片</translation>
    </message>
    <message>
        <source>there is nothing to add: open a model and type a sentence first</source>
        <translation>没有可添加的内容：请先打开模型并输入一个句子</translation>
    </message>
    <message>
        <source>Could not add the slide</source>
        <translation>无法添加幻灯片</translation>
    </message>
    <message>
        <source>{0}

The lesson file was not changed.</source>
        <translation>{0}

课程文件未改动。</translation>
    </message>
    <message>
        <source>Added slide {0} to {1}</source>
        <translation>已把第 {0} 张幻灯片添加到 {1}</translation>
    </message>
</context>
<context>
    <name>LessonMode</name>
    <message>
        <source>(none installed)</source>
        <translation>（未安装）</translation>
    </message>
    <message>
        <source>Exploring freely: press Esc to come back to slide {0}</source>
        <translation>正在自由探索：按 Esc 回到第 {0} 张幻灯片</translation>
    </message>
    <message>
        <source>{0} / {1}</source>
        <translation>{0} / {1}</translation>
    </message>
    <message>
        <source>transviz lesson: {0}</source>
        <translation>transviz 课程：{0}</translation>
    </message>
</context>
<context>
    <name>LookupView</name>
    <message>
        <source>Attention as a look-up</source>
        <translation>把注意力看作查字典</translation>
    </message>
    <message>
        <source>The most common reading of attention is Q, K, V (query, key, value): taking information out of a key-value store, like taking something out of a dictionary. The picture is vivid but not strictly right: attention is continuous, and taking has a knock-on effect. If I take A, the form of attention makes me also take B, which is close to A (closeness measured in the space the parameters define), and I cannot take C, the opposite of A. So attention does not fetch pieces of information independently: they are coupled.</source>
        <translation>attention最常见的解释是Q,K,V，即query, key, value, 可以理解为从KV store结构中取出信息的过程。也就是从一个字典里面拿东西，这种解释非常形象，但不完全严谨，首先attention是连续的，其次这个取出过程是有连锁反应的，比如我取了A，那么根据Attention的形式，我一定会取和A很接近的B（度量由参数定义的空间决定），同样就无法取出和A相反的C。所以其实attention获取信息不是独立的，是有一定关联效应的。</translation>
    </message>
    <message>
        <source>The keys the current query sees, ranked by score: the weight each gets (blue) and the cosine of each key to the best-scoring key (orange). Whether keys more like the best one get more weight varies from row to row; this model names no built-in task, so there is no test split to count how often.</source>
        <translation>当前查询能看到的键，按得分排序：每个键得到的权重（蓝色），以及每个键与得分最高的键的余弦相似度（橙色）。与最佳键越相似的键是否得到越多的权重，因行而异；这个模型没有指明内置任务，因此没有测试集可以统计这种情况有多常见。</translation>
    </message>
    <message>
        <source>The keys the current query sees, ranked by score: the weight each gets (blue) and the cosine of each key to the best-scoring key (orange). How often keys more like the best one get more weight is being counted over the test split (the bar below).</source>
        <translation>当前查询能看到的键，按得分排序：每个键得到的权重（蓝色），以及每个键与得分最高的键的余弦相似度（橙色）。正在测试集上统计与最佳键越相似的键得到越多权重的情况有多常见（见下方进度条）。</translation>
    </message>
    <message>
        <source>The keys the current query sees, ranked by score: the weight each gets (blue) and the cosine of each key to the best-scoring key (orange). Keys more like the best one get more weight in {0:.0%} of this head's {1} query rows over the test split (rank correlation above 0 among the other keys; mean {2:.2f}).</source>
        <translation>当前查询能看到的键，按得分排序：每个键得到的权重（蓝色），以及每个键与得分最高的键的余弦相似度（橙色）。在测试集上，这个头的 {1} 个查询行中有 {0:.0%} 的行里，与最佳键越相似的键得到越多的权重（其余键之间的秩相关大于 0；平均 {2:.2f}）。</translation>
    </message>
    <message>
        <source>The row shown has fewer than {0} other keys to rank.</source>
        <translation>所示的行中其余的键少于 {0} 个，无法排序比较。</translation>
    </message>
    <message>
        <source>In the row shown it is {0:+.2f}: here keys more like the best one do not get more weight.</source>
        <translation>所示的行中秩相关为 {0:+.2f}：这里与最佳键越相似的键并没有得到越多的权重。</translation>
    </message>
    <message>
        <source>In the row shown it is {0:+.2f}.</source>
        <translation>所示的行中秩相关为 {0:+.2f}。</translation>
    </message>
    <message>
        <source>Test sentence {0} of {1}</source>
        <translation>测试句子 {0} / {1}</translation>
    </message>
    <message>
        <source>attention weight</source>
        <translation>注意力权重</translation>
    </message>
    <message>
        <source>cosine to the best key</source>
        <translation>与最佳键的余弦</translation>
    </message>
    <message>
        <source>Query '{0}' looks up its keys (ranked by score)</source>
        <translation>查询“{0}”查找它的键（按得分排序）</translation>
    </message>
    <message>
        <source>Retrieved: the mixture weights @ V (norm {0:.2f}); a dictionary would return the best key's value alone (norm {1:.2f}, weight {2:.0%}); cosine between the two: {3:.3f}.</source>
        <translation>取出的是混合 weights @ V（范数 {0:.2f}）；字典只会返回最佳键的值（范数 {1:.2f}，权重 {2:.0%}）；两者的余弦：{3:.3f}。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>unsaved model</source>
        <translation>未保存的模型</translation>
    </message>
    <message>
        <source>device: {0}</source>
        <translation>设备：{0}</translation>
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
        <source>Heads</source>
        <translation>注意力头</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>为什么</translation>
    </message>
    <message>
        <source>Concepts</source>
        <translation>概念</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Variants</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Lab</source>
        <translation>实验室</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Clos&amp;e lesson</source>
        <translation>关闭课程(&amp;E)</translation>
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
        <source>&amp;Open session...</source>
        <translation>打开会话(&amp;O)...</translation>
    </message>
    <message>
        <source>&amp;Save session...</source>
        <translation>保存会话(&amp;S)...</translation>
    </message>
    <message>
        <source>Open &amp;lesson...</source>
        <translation>打开课程(&amp;L)……</translation>
    </message>
    <message>
        <source>&amp;Recent lessons</source>
        <translation>最近的课程(&amp;R)</translation>
    </message>
    <message>
        <source>Add the current state as a sli&amp;de...</source>
        <translation>把当前状态添加为幻灯片(&amp;D)……</translation>
    </message>
    <message>
        <source>Export current plot as S&amp;VG...</source>
        <translation>将当前图导出为 S&amp;VG…</translation>
    </message>
    <message>
        <source>Export &amp;animation (GIF or MP4)...</source>
        <translation>导出动画（GIF 或 MP4）(&amp;A)...</translation>
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
        <source>Open &amp;folder (Hugging Face)...</source>
        <translation>打开文件夹（Hugging Face）(&amp;F)…</translation>
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
        <source>Back to the class</source>
        <translation>回到课堂</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Manual</source>
        <translation>手册(&amp;M)</translation>
    </message>
    <message>
        <source>Manual page of this ta&amp;b</source>
        <translation>本页的手册(&amp;B)</translation>
    </message>
    <message>
        <source>How to read this &amp;tab</source>
        <translation>如何阅读本页(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Lessons</source>
        <translation>课程(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;About transviz</source>
        <translation>关于 transviz(&amp;A)</translation>
    </message>
    <message>
        <source>Start a &amp;class...</source>
        <translation>开始课堂(&amp;C)……</translation>
    </message>
    <message>
        <source>Stop the class</source>
        <translation>结束课堂</translation>
    </message>
    <message>
        <source>&amp;Join a class...</source>
        <translation>加入课堂(&amp;J)……</translation>
    </message>
    <message>
        <source>Leave the class</source>
        <translation>离开课堂</translation>
    </message>
    <message>
        <source>Variants of attention: the default with one change</source>
        <translation>注意力的变体：在默认模型上只改一处</translation>
    </message>
    <message>
        <source>(none installed)</source>
        <translation>（未安装）</translation>
    </message>
    <message>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <source>No model loaded: Model &gt; Open</source>
        <translation>未加载模型：模型 &gt; 打开</translation>
    </message>
    <message>
        <source>transviz: no model loaded</source>
        <translation>transviz：未加载模型</translation>
    </message>
    <message>
        <source>; {0}</source>
        <translation>；{0}</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>Model: {0} ({1:,} parameters, {2} layers, {3} heads{4})</source>
        <translation>模型：{0}（{1:,} 个参数，{2} 层，{3} 个头{4}）</translation>
    </message>
    <message>
        <source>Model: {0} ({1:,} parameters, {2} encoder and {3} decoder layers, {4} heads{5})</source>
        <translation>模型：{0}（{1:,} 个参数，编码器 {2} 层、解码器 {3} 层，{4} 个头{5}）</translation>
    </message>
    <message>
        <source>transviz: {0}</source>
        <translation>transviz：{0}</translation>
    </message>
    <message>
        <source>Model info: {0}</source>
        <translation>模型信息：{0}</translation>
    </message>
    <message>
        <source>The manual is not installed</source>
        <translation>没有安装手册</translation>
    </message>
    <message>
        <source>This installation has no manual (looked for it in {0}). In a copy of the source, build it with: python docs/build_manual.py</source>
        <translation>这个安装没有手册（在 {0} 中查找过）。在源代码副本中可以这样生成：python docs/build_manual.py</translation>
    </message>
    <message>
        <source>Could not open the manual</source>
        <translation>无法打开手册</translation>
    </message>
    <message>
        <source>No web browser opened the page. Open this file in one: {0}</source>
        <translation>没有浏览器打开这一页。请在浏览器中打开这个文件：{0}</translation>
    </message>
    <message>
        <source>How to read: {0}</source>
        <translation>如何阅读：{0}</translation>
    </message>
    <message>
        <source>Could not open the lesson</source>
        <translation>无法打开课程</translation>
    </message>
    <message>
        <source>{0}

Nothing in the window changed.</source>
        <translation>{0}

窗口中什么也没有改变。</translation>
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
        <source>Sentences separated by ';'</source>
        <translation>用“;”分隔的句子</translation>
    </message>
    <message>
        <source>Follow the explorer</source>
        <translation>跟随探索页</translation>
    </message>
    <message>
        <source>Show the explorer's sentence and the target it has written so far</source>
        <translation>显示探索页中的句子及目前已写出的目标序列</translation>
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
        <translation>0：被掩码</translation>
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
        <source>No model: the other sentences cannot be translated, so the combined mask shows sentence 1 only.</source>
        <translation>未加载模型：无法翻译其他句子，所以组合掩码只显示句子 1。</translation>
    </message>
    <message>
        <source>Translating the other sentences with the model (greedy decoding): until they arrive, the combined mask shows sentence 1 only.</source>
        <translation>正在用模型翻译其他句子（贪心解码）：译文到达之前，组合掩码只显示句子 1。</translation>
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
        <translation>3. 掩码：被掩码处为 -inf</translation>
    </message>
    <message>
        <source>4. softmax over keys: each row sums to 1</source>
        <translation>4. 对键做 softmax：每行之和为 1</translation>
    </message>
    <message>
        <source>A quiz's question is open: the other sentences' translations are hidden until you answer (they could name its token), so the combined mask shows sentence 1 only.</source>
        <translation>测验题尚未作答：其他句子的译文在作答前隐藏（它们可能说出答案词元），因此组合掩码只显示句子 1。</translation>
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
        <source>No model loaded: Model &gt; Open a checkpoint to walk through its attention.</source>
        <translation>未加载模型：请通过“模型 &gt; 打开检查点”加载模型，逐步查看它的注意力计算。</translation>
    </message>
    <message>
        <source>Hidden until you answer: the walkthrough's masked scores and weights show the mask the question asks about.</source>
        <translation>作答前隐藏：逐步演示中被掩码的分数和权重会透露题目所问的掩码。</translation>
    </message>
    <message>
        <source>Walkthrough: one head, one query, step by step</source>
        <translation>逐步演示：一个头、一个查询，一步一步</translation>
    </message>
    <message>
        <source>Quiz</source>
        <translation>测验</translation>
    </message>
    <message>
        <source>Masks: {0}</source>
        <translation>掩码：{0}</translation>
    </message>
    <message>
        <source>Shapes are (batch, heads, queries, keys). The padding mask marks the padding of the source batch: encoder self-attention and cross-attention use it, the same for every head and query. Decoder self-attention uses the combined mask on the decoder inputs (sentence 1: &lt;s&gt; and the target so far; the others: &lt;s&gt; and the model's greedy translation): their padding AND the causal mask, which lets input t see inputs 0..t, never the future. Coloured cells: may attend (True); grey hatched cells: blocked (False), whose scores become -inf before the softmax, hatched as in every attention plot.</source>
        <translation>形状为（批次, 头, 查询, 键）。填充掩码标出源句子批次中的填充：编码器自注意力和交叉注意力使用它，对每个头和每个查询都相同。解码器自注意力在解码器输入上使用组合掩码（句子 1：&lt;s&gt; 加上目前的目标序列；其他句子：&lt;s&gt; 加上模型的贪心翻译）：它们的填充 且 因果掩码，因果掩码让输入 t 只能看到输入 0..t，永远看不到未来。彩色格：可以关注（True）；灰色斜线格：被掩码（False），其分数在 softmax 之前变为 -inf，与所有注意力图中的斜线格相同。</translation>
    </message>
    <message>
        <source>This model is decoder-only: one stack reads each sentence's source, then its decoder inputs, as one stream, so its last picture is one mask over both, built from the same padding and causal masks.</source>
        <translation>此模型是仅解码器模型：一个层栈把每个句子的源句和随后的解码器输入当作一条序列读取，所以最后一张图是覆盖两者的一个掩码，由同样的填充掩码和因果掩码组成。</translation>
    </message>
    <message>
        <source>sentence {0}: '{1}' is not in the vocabulary (read as {2}): its translation is a guess</source>
        <translation>句子 {0}：“{1}”不在词表中（读作 {2}）：它的翻译只是猜测</translation>
    </message>
    <message>
        <source>Padding mask of the source batch (encoder self- and cross-attention): shape {0}</source>
        <translation>源句子批次的填充掩码（padding mask，用于编码器自注意力和交叉注意力）：形状 {0}</translation>
    </message>
    <message>
        <source>Source sentences:</source>
        <translation>源句子：</translation>
    </message>
    <message>
        <source>Sequence (causal) mask over sentence 1's decoder inputs: shape {0}</source>
        <translation>句子 1 的解码器输入上的序列（因果）掩码（sequence mask）：形状 {0}</translation>
    </message>
    <message>
        <source>Decoder inputs:</source>
        <translation>解码器输入：</translation>
    </message>
    <message>
        <source>Decoder self-attention's mask, padding AND causal AND a window of {2} keys: shape {0}; sentence {1}</source>
        <translation>解码器自注意力的掩码，填充 且 因果 且 {2} 个键的窗口：形状 {0}；句子 {1}</translation>
    </message>
    <message>
        <source>Decoder self-attention's mask, padding AND causal: shape {0}; sentence {1}</source>
        <translation>解码器自注意力的掩码，填充 且 因果：形状 {0}；句子 {1}</translation>
    </message>
    <message>
        <source>A prefix LM's one mask (decoder-only): the source's words see each other both ways, the decoder inputs see the source and the inputs up to their own; shape {0}; sentence {1}</source>
        <translation>前缀语言模型的唯一掩码（仅解码器）：源句的词彼此双向可见，解码器输入看到源句以及直到自身的输入；形状 {0}；句子 {1}</translation>
    </message>
    <message>
        <source>A decoder-only model's one mask: every position sees those up to its own, the source's first; shape {0}; sentence {1}</source>
        <translation>仅解码器模型的唯一掩码：每个位置看到直到自身的位置，源句在前；形状 {0}；句子 {1}</translation>
    </message>
    <message>
        <source>{0}; within a window of {1} keys</source>
        <translation>{0}；限于 {1} 个键的窗口内</translation>
    </message>
    <message>
        <source>{0}, alone: the quiz's positions, without the batch's padding</source>
        <translation>{0}，单独显示：测验所用的位置，不含批次的填充</translation>
    </message>
    <message>
        <source>Walkthrough: {0}</source>
        <translation>逐步演示：{0}</translation>
    </message>
    <message>
        <source>1. raw scores Q Kᵀ, Q and K turned by their positions (RoPE)</source>
        <translation>1. 原始分数 Q Kᵀ，Q 和 K 已按各自位置旋转（RoPE）</translation>
    </message>
    <message>
        <source>2. scaled by 1/sqrt(d_k) = 1/sqrt({0})</source>
        <translation>2. 乘以 1/sqrt(d_k) = 1/sqrt({0}) 缩放</translation>
    </message>
    <message>
        <source>2. not scaled: this model leaves Q Kᵀ as it is (T5)</source>
        <translation>2. 不缩放：此模型保持 Q Kᵀ 不变（T5）</translation>
    </message>
    <message>
        <source>3. plus T5's learned bias of each offset's bucket, then -inf where blocked</source>
        <translation>3. 加上 T5 为每个偏移所在桶学到的偏置，再在被掩码处置为 -inf</translation>
    </message>
    <message>
        <source>3. plus ALiBi's bias -{0:.4g} x distance, then -inf where blocked</source>
        <translation>3. 加上 ALiBi 偏置 -{0:.4g} × 距离，再在被掩码处设为 -inf</translation>
    </message>
    <message>
        <source>Query '{0}': softmax weights {1} (sum {2:.3f}). Blocked keys: {3}. The output row is these weights times the rows of V: this head's {4} numbers for '{0}'.</source>
        <translation>查询“{0}”：softmax 权重 {1}（和为 {2:.3f}）。被掩码的键：{3}。输出行等于这些权重乘以 V 的各行：这就是本头为“{0}”算出的 {4} 个数。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
</context>
<context>
    <name>ModelColumn</name>
    <message>
        <source>Open...</source>
        <translation>打开...</translation>
    </message>
    <message>
        <source>Checkpoint file...</source>
        <translation>检查点文件...</translation>
    </message>
    <message>
        <source>Hugging Face folder...</source>
        <translation>Hugging Face 文件夹...</translation>
    </message>
    <message>
        <source>loaded model</source>
        <translation>已加载的模型</translation>
    </message>
    <message>
        <source>loaded: {0}</source>
        <translation>已加载：{0}</translation>
    </message>
    <message>
        <source>Open a checkpoint</source>
        <translation>打开检查点</translation>
    </message>
    <message>
        <source>Checkpoints (*{0})</source>
        <translation>检查点 (*{0})</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder</source>
        <translation>打开 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>未记录</translation>
    </message>
    <message>
        <source>{0:,} parameters · KV cache {1:,} bytes now, {2:,} more per token · test exact match {3}</source>
        <translation>{0:,} 个参数 · KV 缓存现有 {1:,} 字节，每个词元再增加 {2:,} 字节 · 测试集完全匹配率 {3}</translation>
    </message>
</context>
<context>
    <name>ModelFiles</name>
    <message>
        <source>Loading {0}...</source>
        <translation>正在加载 {0}…</translation>
    </message>
    <message>
        <source>The last model, {0}, is not there any more.</source>
        <translation>上次使用的模型 {0} 已不存在。</translation>
    </message>
    <message>
        <source>Loaded {0}; it cannot read the remembered sentence "{1}", so it starts with its first example</source>
        <translation>已加载 {0}；它读不懂记住的句子“{1}”，因此从它的第一个示例开始</translation>
    </message>
    <message>
        <source>Loaded {0}</source>
        <translation>已加载 {0}</translation>
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
        <source>Open checkpoint</source>
        <translation>打开检查点</translation>
    </message>
    <message>
        <source>transviz checkpoints (*.safetensors)</source>
        <translation>transviz 检查点 (*.safetensors)</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder</source>
        <translation>打开 Hugging Face 模型文件夹</translation>
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
        <source>Save model as</source>
        <translation>模型另存为</translation>
    </message>
    <message>
        <source>there is no trace to export: type a sentence in the explorer first</source>
        <translation>没有可导出的解码轨迹：请先在探索页输入句子</translation>
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
</context>
<context>
    <name>ModelRows</name>
    <message>
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>decoder self-attention</source>
        <translation>解码器自注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>scale</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>scaling × factor (rows)</source>
        <translation>缩放 × 系数（行）</translation>
    </message>
    <message>
        <source>keys (columns)</source>
        <translation>键（列）</translation>
    </message>
    <message>
        <source>{row_name} {row}, {column_name} '{column}': {value}</source>
        <translation>{row_name} {row}，{column_name} '{column}'：{value}</translation>
    </message>
    <message>
        <source>No model loaded: Model &gt; Open a checkpoint to see its real rows under the scale.</source>
        <translation>未加载模型：模型 &gt; 打开一个检查点，即可查看它在缩放下的真实注意力行。</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
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
        <source>The loaded model's real rows, scaling × factor</source>
        <translation>已加载模型的真实注意力行，缩放 × 系数</translation>
    </message>
    <message>
        <source>×0: uniform</source>
        <translation>×0：均匀</translation>
    </message>
    <message>
        <source>×1: the model</source>
        <translation>×1：模型本身</translation>
    </message>
    <message>
        <source>×{0:.2f} = √d_k: no scale</source>
        <translation>×{0:.2f} = √d_k：不缩放</translation>
    </message>
    <message>
        <source>{0}, layer {1}, head {2}, query '{3}'</source>
        <translation>{0}，第 {1} 层，第 {2} 头，查询 '{3}'</translation>
    </message>
    <message>
        <source>Entropy of the row in bits: {0}. Only this layer is scaled, so its scores stay the model's: a larger factor sharpens the row, 0 makes it uniform.</source>
        <translation>这一行的熵（比特）：{0}。只缩放这一层，所以它的分数仍是模型自己的：系数越大，这一行越尖锐；系数为 0 时变为均匀分布。</translation>
    </message>
</context>
<context>
    <name>ParallelView</name>
    <message>
        <source>Training vs. decoding time</source>
        <translation>训练与解码的耗时</translation>
    </message>
    <message>
        <source>The decoder trains in parallel but does not infer in parallel: in training, with teacher forcing, the decoder needs no output of the previous time step and can be parallelised; but at test time we have no correct target sentence, the input at time t must depend on the output at time t-1, and then it is no different from the earlier seq2seq.</source>
        <translation>Decoder 训练并行、推理不并行：训练阶段的 Decoder，如果使用teacher force训练方式，不用获取上一时刻输出即可训练，此时可以进行并行化，但是在测试阶段，因为我们没有正确的目标语句，t 时刻的输入必然依赖 t-1时刻的输出，这时跟之前的 seq2seq 就没什么区别了。</translation>
    </message>
    <message>
        <source>Left, measured on this computer's CPU on one thread (median of {0}): the decoder reading T tokens in one teacher-forced pass, the same decoder generating them in T steps with its key/value cache (the same logits), a GRU of the same width and layers over T inputs. Right: the layers each must run one after another, which no number of processors can shorten.</source>
        <translation>左图：在本机 CPU 上单线程实测（{0} 次取中位数）：解码器以强制教学一次读入 T 个词元；同一个解码器借助键/值缓存分 T 步逐个生成它们（输出完全相同）；同样宽度和层数的 GRU 处理 T 个输入。右图：每种方式必须一层接一层依次运行的层数，处理器再多也无法缩短。</translation>
    </message>
    <message>
        <source>On one thread nothing runs at the same time: at T = {0} the steps took {1:.1f} times as long as the pass because they make T calls through the layers where it makes one, and the GRU, looping inside one call, took {2:.1f} times as long. The pass's advantage is independence: its chain is {3} layers at any T; generating must wait through {4}, the GRU, in training too, through {5}.</source>
        <translation>单线程上没有任何计算同时进行：T = {0} 时，逐步生成的用时是一次前向计算的 {1:.1f} 倍，因为它要把各层调用 T 次，而一次前向计算只调用一次；GRU 的各步在一次调用内部循环，用时是它的 {2:.1f} 倍。一次前向计算的优势在于各位置互不依赖：无论 T 多大，它的依赖链都只有 {3} 层；逐步生成要依次等待 {4} 层，GRU 即使在训练时也要等待 {5} 层。</translation>
    </message>
    <message>
        <source>one teacher-forced pass (training)</source>
        <translation>一次 强制教学 前向（训练）</translation>
    </message>
    <message>
        <source>T cached steps (generating)</source>
        <translation>T 步缓存解码（生成）</translation>
    </message>
    <message>
        <source>GRU over T steps</source>
        <translation>GRU 跑 T 步</translation>
    </message>
    <message>
        <source>At T = {0}, on one thread, generating takes {1:.1f} times the pass</source>
        <translation>T = {0} 时（单线程），生成用时是一次前向计算的 {1:.1f} 倍</translation>
    </message>
    <message>
        <source>layers, one after another</source>
        <translation>依次运行的层数</translation>
    </message>
    <message>
        <source>Longest chain of dependent layers ({0} per pass)</source>
        <translation>最长的依赖层链（每次前向计算 {0} 层）</translation>
    </message>
    <message>
        <source>decoder tokens T</source>
        <translation>解码器词元数 T</translation>
    </message>
    <message>
        <source>milliseconds</source>
        <translation>毫秒</translation>
    </message>
</context>
<context>
    <name>PatchingView</name>
    <message>
        <source>the encoder's stream at a source position</source>
        <translation>编码器在一个源语言位置上的残差流</translation>
    </message>
    <message>
        <source>one cross-attention head at the step</source>
        <translation>这一步的一个交叉注意力头</translation>
    </message>
    <message>
        <source>the decoder's stream at the step</source>
        <translation>解码器在这一步的残差流</translation>
    </message>
    <message>
        <source>source positions (columns, A's word/B's where they differ)</source>
        <translation>源语言位置（列，两句不同处写作 A 的词/B 的词）</translation>
    </message>
    <message>
        <source>cross-attention heads (columns)</source>
        <translation>交叉注意力头（列）</translation>
    </message>
    <message>
        <source>the step's decoder input (one column)</source>
        <translation>这一步的解码器输入（一列）</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>patched</source>
        <translation>修补处</translation>
    </message>
    <message>
        <source>layers (rows) of the patched stack</source>
        <translation>被修补的堆栈的各层（行）</translation>
    </message>
    <message>
        <source>{row_name} {row}, {column_name} '{column}': {value}</source>
        <translation>{row_name} {row}，{column_name}“{column}”：{value}</translation>
    </message>
    <message>
        <source>Patch:</source>
        <translation>修补：</translation>
    </message>
    <message>
        <source>Output step:</source>
        <translation>输出步：</translation>
    </message>
    <message>
        <source>Compare (Enter) runs sentences A and B through one model; this map then shows how far A's activations, patched into B's run one at a time, move B's output toward A's.</source>
        <translation>“比较（Enter）”用同一个模型运行句子 A 和 B；随后这张图显示：把 A 的激活逐个修补进 B 的运行时，B 的输出向 A 的输出移动了多少。</translation>
    </message>
    <message>
        <source>Step {0}: how far each patch moves B from '{1}' to A's '{2}' (0: B's own run, 1: A's)</source>
        <translation>第 {0} 步：每次修补把 B 从“{1}”推向 A 的“{2}”多远（0：B 自己的运行，1：A 的）</translation>
    </message>
    <message>
        <source>Both runs read A's output so far ({0}). A's run prefers '{1}' over '{2}' by {3:.2f} in log-probability, B's by {4:.2f}. The largest move, {5:.2f}, comes from layer {6}, '{7}'.</source>
        <translation>两次运行都读取 A 到目前为止的输出（{0}）。A 的运行在对数概率上偏好“{1}”胜过“{2}”{3:.2f}，B 的运行为 {4:.2f}。最大的推动 {5:.2f} 来自第 {6} 层的“{7}”。</translation>
    </message>
</context>
<context>
    <name>PlotPanel</name>
    <message>
        <source>plot {0}</source>
        <translation>图 {0}</translation>
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
        <source>the loaded model's table</source>
        <translation>已加载模型的位置编码表</translation>
    </message>
    <message>
        <source>interleaved: sin, cos, sin, cos ... (the formula)</source>
        <translation>交错排列：sin, cos, sin, cos …（公式）</translation>
    </message>
    <message>
        <source>sin half | cos half (the seed's figure)</source>
        <translation>前半 sin | 后半 cos（教程中的图）</translation>
    </message>
    <message>
        <source>encoder (keys before and after)</source>
        <translation>编码器（前后的键）</translation>
    </message>
    <message>
        <source>decoder (keys before)</source>
        <translation>解码器（之前的键）</translation>
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
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>stack</source>
        <translation>层栈</translation>
    </message>
    <message>
        <source>The seed's figure: 20 x 512</source>
        <translation>教程中的图：20 x 512</translation>
    </message>
    <message>
        <source>The formula's table at 20 positions and d_model 512, as the seed tutorial draws it</source>
        <translation>按公式计算的 20 个位置、d_model 为 512 的表，与教程中的图相同</translation>
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
        <source>This model has no positions at all: only the decoder's causal mask tells it order, so this tab shows the formula's</source>
        <translation>这个模型完全没有位置信息：只有解码器的因果掩码告诉它顺序，所以本页显示公式的表</translation>
    </message>
    <message>
        <source>No model loaded: Model &gt; Open</source>
        <translation>未加载模型：模型 &gt; 打开</translation>
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
        <source>Similarity PE · PEᵀ of the learned table</source>
        <translation>学到的表的相似度 PE · PEᵀ</translation>
    </message>
    <message>
        <source>query position</source>
        <translation>查询位置</translation>
    </message>
    <message>
        <source>key position</source>
        <translation>键位置</translation>
    </message>
    <message>
        <source>the query's position (rows)</source>
        <translation>查询的位置（行）</translation>
    </message>
    <message>
        <source>the key's position (columns)</source>
        <translation>键的位置（列）</translation>
    </message>
    <message>
        <source>RoPE, encoder layer 0, head {0}: the score of the query of '{1}' turned to position m (rows) over the key of '{2}' turned to position n (columns). Every diagonal holds one value: the score depends on n - m alone</source>
        <translation>RoPE，编码器第 0 层，头 {0}：“{1}”的查询转到位置 m（行）时对“{2}”的键转到位置 n（列）的分数。每条对角线上只有一个值：分数只取决于 n - m</translation>
    </message>
    <message>
        <source>The query's pair of dimensions 0 and d_k/2, position by position</source>
        <translation>查询的第 0 维和第 d_k/2 维这一对，逐个位置</translation>
    </message>
    <message>
        <source>dimension 0</source>
        <translation>第 0 维</translation>
    </message>
    <message>
        <source>dimension d_k/2</source>
        <translation>第 d_k/2 维</translation>
    </message>
    <message>
        <source>RoPE turns each pair of a head's dimensions by an angle that grows with the position: q_m = R(m θ) q and k_n = R(n θ) k, so q_m · k_n = q · R((n - m) θ) k. Why: the order a translation needs is relative, and the embeddings stay free of positions.</source>
        <translation>RoPE 把一个头的每对维度旋转一个随位置增长的角度：q_m = R(m θ) q，k_n = R(n θ) k，所以 q_m · k_n = q · R((n - m) θ) k。为什么：翻译需要的顺序是相对的，而且嵌入中不必加入位置。</translation>
    </message>
    <message>
        <source>ALiBi, head {0}: -{1:.4g} x |query position - key position|, added to every scaled score</source>
        <translation>ALiBi，头 {0}：-{1:.4g} x |查询位置 - 键位置|，加到每个缩放后的分数上</translation>
    </message>
    <message>
        <source>ALiBi adds -m_h |i - j| to head h's scores, slopes m_h = 2^(-8h/H): nothing is learned. Why: nearer words weigh more, by a different amount in each head, and the model reads longer sentences than it trained on.</source>
        <translation>ALiBi 给头 h 的分数加上 -m_h |i - j|，斜率 m_h = 2^(-8h/H)：没有要学的参数。为什么：越近的词权重越大，每个头的程度不同，而且模型能读比训练时更长的句子。</translation>
    </message>
    <message>
        <source>the decoder's: keys before the query</source>
        <translation>解码器的：查询之前的键</translation>
    </message>
    <message>
        <source>the encoder's: keys before and after the query apart</source>
        <translation>编码器的：分开查询之前和之后的键</translation>
    </message>
    <message>
        <source>T5: the bucket of every offset, {0}</source>
        <translation>T5：每个偏移所在的桶，{0}</translation>
    </message>
    <message>
        <source>T5, head {0}: the learned bias of each (query, key)'s bucket</source>
        <translation>T5，头 {0}：每个（查询，键）所在桶学到的偏置</translation>
    </message>
    <message>
        <source>T5 adds b_h(bucket(j - i)) to head h's scores: one learned number per head and bucket. Offsets below {0} get a bucket each, farther ones share buckets that widen logarithmically up to {1}. Why: relative positions, learned, one table per stack shared by its layers.</source>
        <translation>T5 给头 h 的分数加上 b_h(bucket(j - i))：每个头每个桶学一个数。小于 {0} 的偏移各占一个桶，更远的共用按对数变宽的桶，直到 {1}。为什么：学到的相对位置，每个层栈一张表，由它的各层共用。</translation>
    </message>
    <message>
        <source>head {0}</source>
        <translation>头 {0}</translation>
    </message>
    <message>
        <source>Each head's bias against the offset (key - query)</source>
        <translation>每个头的偏置随偏移（键 - 查询）的变化</translation>
    </message>
    <message>
        <source>offset: key position - query position</source>
        <translation>偏移：键位置 - 查询位置</translation>
    </message>
    <message>
        <source>bias added to the score</source>
        <translation>加到分数上的偏置</translation>
    </message>
    <message>
        <source>A learned table (this model's): each position's row was trained, no formula made it, so PE · PEᵀ need not depend on the offset alone as a sine table's does.</source>
        <translation>学到的表（此模型的）：每个位置的行都是训练出来的，不是公式算出的，所以 PE · PEᵀ 不像正弦表那样只取决于偏移。</translation>
    </message>
    <message>
        <source>fairseq's table (this model's): dimension 2i holds sin((pos + 2) / 10000^(i/(d_model/2 - 1))), dimension 2i+1 the cos of the same angle: fairseq counts positions from 2.</source>
        <translation>fairseq 的位置表（本模型所用）：第 2i 维是 sin((pos + 2) / 10000^(i/(d_model/2 - 1)))，第 2i+1 维是同一角度的 cos：fairseq 从 2 开始计数位置。</translation>
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
    <name>PositionsSection</name>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>No model loaded: Model &gt; Open a checkpoint, then shuffle its source words here.</source>
        <translation>未加载模型：模型 &gt; 打开一个检查点，然后在这里打乱它的源句单词。</translation>
    </message>
    <message>
        <source>Original, with positions</source>
        <translation>原句，有位置编码</translation>
    </message>
    <message>
        <source>Shuffled, with positions</source>
        <translation>打乱后，有位置编码</translation>
    </message>
    <message>
        <source>Original, without positions</source>
        <translation>原句，无位置编码</translation>
    </message>
    <message>
        <source>Shuffled, without positions</source>
        <translation>打乱后，无位置编码</translation>
    </message>
    <message>
        <source>{0}: layer {1}, head {2}</source>
        <translation>{0}：第 {1} 层，第 {2} 头</translation>
    </message>
    <message>
        <source>Source: {0}. Press the button to shuffle its words.</source>
        <translation>源句：{0}。按下按钮即可打乱它的单词。</translation>
    </message>
    <message>
        <source>Original: {0}
Shuffled: {1} (original positions {2})</source>
        <translation>原句：{0}
打乱后：{1}（原位置 {2}）</translation>
    </message>
    <message>
        <source>With positions, the largest difference between the shuffled map and the original with its rows and columns reordered is {0:.3g}: each word's position is part of its input, so the attention changes.</source>
        <translation>有位置编码时，打乱后的注意力图与按同样顺序重排行和列的原图之间的最大差值为 {0:.3g}：每个单词的位置是其输入的一部分，所以注意力会改变。</translation>
    </message>
    <message>
        <source>Without positions (NoPositions), the largest difference is {0:.1e}: the same map with its rows and columns reordered, to float rounding. The model cannot see word order.</source>
        <translation>无位置编码（NoPositions）时，最大差值为 {0:.1e}：在浮点舍入误差范围内，它就是行和列重排后的同一张图。模型看不到词序。</translation>
    </message>
    <message>
        <source>Shuffle again</source>
        <translation>再打乱一次</translation>
    </message>
    <message>
        <source>Shuffle the source words</source>
        <translation>打乱源句单词</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>文件类型(&amp;T)：</translation>
    </message>
</context>
<context>
    <name>QuizPanel</name>
    <message>
        <source>Reveal (Enter)</source>
        <translation>揭晓答案（Enter）</translation>
    </message>
    <message>
        <source>the next token</source>
        <translation>下一个词元</translation>
    </message>
    <message>
        <source>where a head looks</source>
        <translation>一个头看向哪里</translation>
    </message>
    <message>
        <source>which layer first writes the token</source>
        <translation>哪一层最先写出该词元</translation>
    </message>
    <message>
        <source>does a row sum to 1</source>
        <translation>一行之和是否为 1</translation>
    </message>
    <message>
        <source>which head aligns best</source>
        <translation>哪个头对齐得最好</translation>
    </message>
    <message>
        <source>which side supplies the queries</source>
        <translation>哪一侧提供查询</translation>
    </message>
    <message>
        <source>which mask cell is blocked</source>
        <translation>哪个掩码格被掩码</translation>
    </message>
    <message>
        <source>score {0} / {1}</source>
        <translation>得分 {0} / {1}</translation>
    </message>
    <message>
        <source>Quiz: press Right (or Step) to be asked about the next step.</source>
        <translation>测验：按右方向键（或“单步”）开始下一步的提问。</translation>
    </message>
    <message>
        <source>Step {0}: which token will the model write next? Press 1-{1}.</source>
        <translation>第 {0} 步：模型接下来会写出哪个词元？按 1-{1} 选择。</translation>
    </message>
    <message>
        <source>Step {0}: which decoder layer is the first to rank the next token first, every layer after it too? Press 1-{1} (layers from 0).</source>
        <translation>第 {0} 步：哪个解码器层最先把下一个词元排在第一，而且之后的每一层也都这样？按 1-{1}（层从 0 数起）。</translation>
    </message>
    <message>
        <source>Step {0}: does this step's row of layer {1}, head {2} in the map shown sum to 1? Press 1 (yes) or 2 (no).</source>
        <translation>第 {0} 步：图中第 {1} 层头 {2} 在这一步的那一行和为 1 吗？按 1（是）或 2（否）。</translation>
    </message>
    <message>
        <source>Which head of decoder layer {0} aligns best with the words being translated, over the test sentences? Press 1-{1} (heads from 0).</source>
        <translation>在测试句子上，解码器第 {0} 层的哪个头与正在翻译的词对齐得最好？按 1-{1}（头从 0 数起）。</translation>
    </message>
    <message>
        <source>In {0}, whose tokens supply the queries (the rows of its maps)? Press 1 or 2.</source>
        <translation>在{0}中，查询（图中的行）来自谁的词元？按 1 或 2。</translation>
    </message>
    <message>
        <source>Step {0}: which of these cells of the decoder's self-attention mask is blocked? Press 1-4 or click a numbered cell in the Masks tab.</source>
        <translation>第 {0} 步：解码器自注意力掩码的这几个格中，哪一个被掩码？按 1-4，或在“掩码”页点击带编号的格。</translation>
    </message>
    <message>
        <source>Step {0}: where will layer {1}, head {2} look? Press 1-9 or click a key in the large map.</source>
        <translation>第 {0} 步：第 {1} 层第 {2} 个头会关注哪里？按 1-9，或在大图中点击一个键。</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>the source's tokens (what the encoder reads)</source>
        <translation>源句的词元（编码器读取的）</translation>
    </message>
    <message>
        <source>the decoder's inputs (the output so far)</source>
        <translation>解码器的输入（到目前为止的输出）</translation>
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
        <source>query {0} '{1}' -&gt; key {2} '{3}'</source>
        <translation>查询 {0} “{1}” -&gt; 键 {2} “{3}”</translation>
    </message>
    <message>
        <source>{0} The row sums to {1:.4f}.</source>
        <translation>{0}这一行的和是 {1:.4f}。</translation>
    </message>
    <message>
        <source>{0} Its first layer projected {1:.0f} query rows here, one per decoder input.</source>
        <translation>{0}它的第一层在这里投影出 {1:.0f} 行查询，每个解码器输入一行。</translation>
    </message>
    <message>
        <source>{0} Its first layer projected {1:.0f} query rows here, one per source token.</source>
        <translation>{0}它的第一层在这里投影出 {1:.0f} 行查询，每个源语言词元一行。</translation>
    </message>
    <message>
        <source>The answer: '{0}' (p = {1:.3f}).</source>
        <translation>答案：“{0}”（p = {1:.3f}）。</translation>
    </message>
    <message>
        <source>{0} gives the written token p = {1:.3f}.</source>
        <translation>{0}给写出的词元 p = {1:.3f}。</translation>
    </message>
    <message>
        <source>{0} chooses a gold-aligned word at {1:.1%} of the steps.</source>
        <translation>{0}在 {1:.1%} 的步里选中了标准对齐的词。</translation>
    </message>
    <message>
        <source>The answer: cell {0}.</source>
        <translation>答案：第 {0} 格。</translation>
    </message>
    <message>
        <source>Not quite: cell {0} is blocked.</source>
        <translation>不太对：被掩码的是第 {0} 格。</translation>
    </message>
    <message>
        <source>Blocked: key position {1} comes after query position {0}.</source>
        <translation>被掩码：键的位置 {1} 在查询的位置 {0} 之后。</translation>
    </message>
    <message>
        <source>Blocked: key position {1} is {2} positions from query position {0}, outside the sliding window.</source>
        <translation>被掩码：键的位置 {1} 距查询的位置 {0} 有 {2} 个位置，在滑动窗口之外。</translation>
    </message>
    <message>
        <source>Blocked: query position {0} is the source's, and the source never sees the output (key position {1}).</source>
        <translation>被掩码：查询的位置 {0} 属于源句，而源句永远看不到输出（键的位置 {1}）。</translation>
    </message>
    <message>
        <source>Blocked.</source>
        <translation>被掩码。</translation>
    </message>
    <message>
        <source>The answer: '{0}'.</source>
        <translation>答案：“{0}”。</translation>
    </message>
    <message>
        <source>Right!</source>
        <translation>答对了！</translation>
    </message>
    <message>
        <source>What each step asks; another kind starts a fresh score and asks about the current step</source>
        <translation>每一步问什么；换一种题型会重新计分，并就当前这一步提问</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>提问</translation>
    </message>
    <message>
        <source>Not quite: the answer is '{0}'.</source>
        <translation>不对：答案是“{0}”。</translation>
    </message>
    <message>
        <source>The model gave '{0}' p = {1:.3f}.</source>
        <translation>模型给“{0}”的概率 p = {1:.3f}。</translation>
    </message>
    <message>
        <source>The head gave '{0}' weight {1:.3f}.</source>
        <translation>该头给“{0}”的权重为 {1:.3f}。</translation>
    </message>
</context>
<context>
    <name>RunChooser</name>
    <message>
        <source>loaded model</source>
        <translation>已加载的模型</translation>
    </message>
    <message>
        <source>Checkpoint...</source>
        <translation>检查点...</translation>
    </message>
    <message>
        <source>sentence</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>step {0}</source>
        <translation>第 {0} 步</translation>
    </message>
    <message>
        <source>{0} holds no training snapshots</source>
        <translation>{0} 中没有训练快照</translation>
    </message>
    <message>
        <source>Decode the sentence, or show a training snapshot saved in the checkpoint: its probe sentence as the model saw it after that many training steps</source>
        <translation>解码这个句子，或者显示检查点中保存的训练快照：模型训练了这么多步之后看到的探针句</translation>
    </message>
    <message>
        <source>{0}, step {1}</source>
        <translation>{0}，第 {1} 步</translation>
    </message>
    <message>
        <source>Open a checkpoint</source>
        <translation>打开检查点</translation>
    </message>
    <message>
        <source>Checkpoints (*{0})</source>
        <translation>检查点 (*{0})</translation>
    </message>
</context>
<context>
    <name>ScaleSection</name>
    <message>
        <source>d_k (random q and k, entries from N(0, 1))</source>
        <translation>d_k（随机的 q 和 k，元素取自 N(0, 1)）</translation>
    </message>
    <message>
        <source>Spread of q·k grows as √d_k</source>
        <translation>q·k 的离散程度随 √d_k 增长</translation>
    </message>
    <message>
        <source>std of q·k</source>
        <translation>q·k 的标准差</translation>
    </message>
    <message>
        <source>d_k</source>
        <translation>d_k</translation>
    </message>
    <message>
        <source>One row's softmax (10 keys)</source>
        <translation>一行的 softmax（10 个键）</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>Entropy of a row (median)</source>
        <translation>一行的熵（中位数）</translation>
    </message>
    <message>
        <source>bits</source>
        <translation>比特</translation>
    </message>
    <message>
        <source>Softmax gradient (median)</source>
        <translation>softmax 的梯度（中位数）</translation>
    </message>
    <message>
        <source>‖diag(p) − ppᵀ‖</source>
        <translation>‖diag(p) − ppᵀ‖</translation>
    </message>
    <message>
        <source>√d_k</source>
        <translation>√d_k</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>unscaled</source>
        <translation>未缩放</translation>
    </message>
    <message>
        <source>÷ √d_k</source>
        <translation>÷ √d_k</translation>
    </message>
    <message>
        <source>d_k = {0}, √d_k = {1:.2f}</source>
        <translation>d_k = {0}，√d_k = {1:.2f}</translation>
    </message>
    <message>
        <source>The std of q·k over {0} random pairs is {1:.2f}, close to √d_k = {2:.2f}. One row of 10 keys without the scale: entropy {3:.3f} bits, gradient norm {4:.3g}; divided by √d_k: entropy {5:.3f} bits, gradient norm {6:.3g}. Unscaled, large d_k gives one key almost all the weight, and almost no gradient reaches the scores.</source>
        <translation>{0} 对随机 q、k 的 q·k 标准差为 {1:.2f}，接近 √d_k = {2:.2f}。一行 10 个键，不缩放时：熵 {3:.3f} 比特，梯度范数 {4:.3g}；除以 √d_k 后：熵 {5:.3f} 比特，梯度范数 {6:.3g}。不缩放时，d_k 越大，几乎全部权重都落在一个键上，几乎没有梯度能传回分数。</translation>
    </message>
</context>
<context>
    <name>SessionController</name>
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
        <translation>在束搜索中，这些候选属于本步之前并非最佳的假设：请切换到贪心解码，才能在这里强制指定一个词。</translation>
    </message>
    <message>
        <source>No change of the interventions to undo.</source>
        <translation>没有可撤销的干预更改。</translation>
    </message>
    <message>
        <source>No undone change of the interventions to redo.</source>
        <translation>没有可重做的已撤销干预更改。</translation>
    </message>
</context>
<context>
    <name>SessionFiles</name>
    <message>
        <source>there is nothing to save: open a model and type a sentence first</source>
        <translation>没有可保存的内容：请先打开模型并输入句子</translation>
    </message>
    <message>
        <source>{0} holds {1} slides: open it as a lesson (File &gt; Open lesson)</source>
        <translation>{0} 含有 {1} 张幻灯片：请把它作为课程打开（文件 &gt; 打开课程）</translation>
    </message>
    <message>
        <source>Save session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>transviz sessions (*.transviz)</source>
        <translation>transviz 会话 (*.transviz)</translation>
    </message>
    <message>
        <source>Could not save the session</source>
        <translation>无法保存会话</translation>
    </message>
    <message>
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
    <message>
        <source>Open session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <source>transviz sessions (*.transviz);;lessons (*.toml)</source>
        <translation>transviz 会话 (*.transviz);;课程 (*.toml)</translation>
    </message>
    <message>
        <source>Could not open the session</source>
        <translation>无法打开会话</translation>
    </message>
    <message>
        <source>{0}

Nothing in the window changed.</source>
        <translation>{0}

窗口中的内容没有任何改变。</translation>
    </message>
    <message>
        <source>Opened {0}</source>
        <translation>已打开 {0}</translation>
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
        <source>The settings file {0} is not a plain file; transviz starts with its defaults and does not write it.</source>
        <translation>设置文件 {0} 不是普通文件；transviz 以默认设置启动，且不会写入它。</translation>
    </message>
    <message>
        <source>The settings file {0} is damaged and could not be set aside; transviz starts with its defaults and leaves the file as it is.</source>
        <translation>设置文件 {0} 已损坏，且无法另存；transviz 以默认设置启动，并保持该文件原样。</translation>
    </message>
    <message>
        <source>Damaged settings set aside as {0}; starting with the defaults.</source>
        <translation>损坏的设置文件已另存为 {0}；以默认设置启动。</translation>
    </message>
</context>
<context>
    <name>SharingView</name>
    <message>
        <source>Weight sharing</source>
        <translation>权重共享</translation>
    </message>
    <message>
        <source>The encoder's and the decoder's embedding layers can share their weights: the source and target languages differ, but they can use one large vocabulary, and words both languages use (numbers, punctuation) get a better representation. Moreover, the encoder and the decoder each activate only their own language's embeddings, so they can share one table. The decoder's embedding layer and its final FC layer can share too: the embedding is (v, d), the FC layer (d, v), v the vocabulary size and d the embedding size; transposed, one serves as the other.</source>
        <translation>Encoder 和 Decoder 间的 Embedding 层权重共享：源语言和目标语言是不一样的，但它们可以共用一张大词表，对于两种语言中共同出现的词（比如：数字，标点等等）可以得到更好的表示，而且对于Encoder和Decoder，嵌入时都只有对应语言的embedding会被激活，因此是可以共用一张词表做权重共享的。Decoder 中 Embedding 层和 FC 层权重共享：Embedding 层参数维度是：(v, d)，FC 层参数维度是：(d, v)，其中v是词表大小，d是embedding维度，转置后直接共用</translation>
    </message>
    <message>
        <source>The bars count the parameters of the embedding tables and the output layer's weight: as the loaded model stores them, without any sharing, and with one joint table that the output layer also uses.</source>
        <translation>柱状图统计嵌入表和输出层权重的参数：按已加载模型实际存储的、完全不共享的，以及使用一张联合词表并让输出层也共用它的三种情况。</translation>
    </message>
    <message>
        <source>source embedding</source>
        <translation>源语言嵌入</translation>
    </message>
    <message>
        <source>target embedding</source>
        <translation>目标语言嵌入</translation>
    </message>
    <message>
        <source>output layer weight</source>
        <translation>输出层权重</translation>
    </message>
    <message>
        <source>one joint table (both sides and the output)</source>
        <translation>一张共用的词表（两侧与输出层共用）</translation>
    </message>
    <message>
        <source>this model</source>
        <translation>本模型</translation>
    </message>
    <message>
        <source>no sharing</source>
        <translation>不共享</translation>
    </message>
    <message>
        <source>shared and tied</source>
        <translation>共享并绑定</translation>
    </message>
    <message>
        <source>parameters (thousands)</source>
        <translation>参数（千）</translation>
    </message>
    <message>
        <source>The tables that can be shared, d_model {0}</source>
        <translation>可以共享的表，d_model {0}</translation>
    </message>
    <message>
        <source>This model stores {0:,} parameters. Without sharing: {1:,}; with one joint table of {2:,} tokens used by both sides and by the output layer: {3:,} ({4:+.1%}).</source>
        <translation>本模型存储 {0:,} 个参数。不共享时：{1:,}；两侧和输出层共用一张含 {2:,} 个词元的联合词表时：{3:,}（{4:+.1%}）。</translation>
    </message>
    <message>
        <source>The encoder and the decoder read one embedding table ({0:,} tokens x {1}).</source>
        <translation>编码器和解码器读取同一张嵌入表（{0:,} 个词元 × {1}）。</translation>
    </message>
    <message>
        <source>Source and target have their own tables ({0:,} and {1:,} tokens).</source>
        <translation>源语言和目标语言各有自己的表（{0:,} 和 {1:,} 个词元）。</translation>
    </message>
    <message>
        <source>The output layer is tied: its rows are the target embedding's rows (largest difference {0:g}).</source>
        <translation>输出层已绑定：它的行就是目标语言嵌入的行（最大差异 {0:g}）。</translation>
    </message>
    <message>
        <source>The output layer has its own weight; the recipe toy-de-en-shared trains a model with both kinds of sharing (transviz train --recipe toy-de-en-shared).</source>
        <translation>输出层有自己的权重；配方 toy-de-en-shared 训练一个同时使用两种共享的模型（transviz train --recipe toy-de-en-shared）。</translation>
    </message>
</context>
<context>
    <name>SimilarityView</name>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>heads (alike ones adjacent)</source>
        <translation>头（相似的排在一起）</translation>
    </message>
    <message>
        <source>Alike heads</source>
        <translation>相似的头</translation>
    </message>
    <message>
        <source>Looking at the heads after pre-training, one often finds heads that are identical or close in function; even replacing some of them does not affect downstream tasks much. So more heads are just redundancy.</source>
        <translation>通过观察预训练后的head，经常可以发现雷同或功能接近的head，甚至替换其中一部分，下游任务也不会有很大的影响。说明更多的head也只是冗余。</translation>
    </message>
    <message>
        <source>Each cell: how differently two heads of this kind spread their attention, the mean Jensen-Shannon divergence of their rows (0: the same, ln 2 = 0.69: disjoint) over the first test sentences of the task. Beside it, two heads' maps for the Explorer's sentence: the most alike pair, or the cell clicked.</source>
        <translation>每个格子：这类注意力的两个头分配注意力的差别有多大，即在任务前若干个测试句子上它们各行之间的平均 Jensen-Shannon 散度（0：完全相同，ln 2 = 0.69：毫不重叠）。旁边是两个头在“探索”当前句子上的注意力图：最相似的一对，或点击的那个格子对应的一对。</translation>
    </message>
    <message>
        <source>Most alike: {0} and {1} (JSD {2:.3f}). Click a cell to see its two heads side by side; the button under them lets the later copy the other's pattern, to see what the translation loses in the Explorer.</source>
        <translation>最相似的一对：{0} 和 {1}（JSD {2:.3f}）。点击一个格子，并排查看它的两个头；下面的按钮让较后的头照搬另一个头的注意力模式，再到“探索”中看翻译失去了什么。</translation>
    </message>
    <message>
        <source>Comparing every two heads of the {0} on the task's test sentences, off the window's thread: the matrix appears when done.</source>
        <translation>正在任务的测试句子上两两比较{0}的所有头（在窗口线程之外计算）：完成后显示矩阵。</translation>
    </message>
    <message>
        <source>Test sentence {0} of {1}</source>
        <translation>测试句子 {0} / {1}</translation>
    </message>
    <message>
        <source>Mean JSD between heads, {0} sentences, {1} query rows</source>
        <translation>头之间的平均 JSD，{0} 个句子，{1} 个查询行</translation>
    </message>
    <message>
        <source>{1} now copies {0}'s pattern (JSD between them {2:.3f}). The Explorer decodes with it: in its grid of the {3}, {1} is framed as edited and shows {0}'s weights; compare the two tiles there, and the translation with and without the copy.</source>
        <translation>{1} 现在复制 {0} 的注意力模式（两者的 JSD 为 {2:.3f}）。探索页会带着这个改动解码：在它的{3}网格中，{1} 被框出标为已编辑，并显示 {0} 的权重；在那里比较这两个小图，以及复制前后的翻译。</translation>
    </message>
</context>
<context>
    <name>SnapshotTimeline</name>
    <message>
        <source>cross-attention (target queries x source keys)</source>
        <translation>交叉注意力（目标语言查询 × 源语言键）</translation>
    </message>
    <message>
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>decoder self-attention</source>
        <translation>解码器自注意力</translation>
    </message>
    <message>
        <source>Attention of the probe</source>
        <translation>探针句的注意力</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Start a run to watch the attention of the probe sentence form, or open the timeline saved in a checkpoint.</source>
        <translation>开始一次训练，观察探针句的注意力如何形成；或者打开检查点中保存的时间线。</translation>
    </message>
    <message>
        <source>layer {0}, mean of heads</source>
        <translation>第 {0} 层，各头平均</translation>
    </message>
    <message>
        <source>layer {0}, head {1}</source>
        <translation>第 {0} 层，头 {1}</translation>
    </message>
    <message>
        <source>{0} (click a head in the grid)</source>
        <translation>{0}（点击网格中的一个头）</translation>
    </message>
    <message>
        <source>no snapshots yet</source>
        <translation>还没有快照</translation>
    </message>
    <message>
        <source>step {0} (snapshot {1} of {2})</source>
        <translation>第 {0} 步（快照 {1}/{2}）</translation>
    </message>
    <message>
        <source>At step {0} the model predicts after each target token: {1}</source>
        <translation>第 {0} 步时，模型在每个目标词元之后的预测：{1}</translation>
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
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>A sentence of the task's test split, which the model never saw in training, with its translation</source>
        <translation>任务测试集中的一个句子（模型训练时从未见过），连同它的译文</translation>
    </message>
    <message>
        <source>Words...</source>
        <translation>词表……</translation>
    </message>
    <message>
        <source>The words this model knows: a word it does not know is read as &lt;unk&gt;</source>
        <translation>这个模型认识的词：它不认识的词会被读作 &lt;unk&gt;</translation>
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
        <source>Feed the reference's tokens instead of the model's own choices and compare them with what the model predicts at each step</source>
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
        <source>This model reads at most {0} tokens per sentence</source>
        <translation>这个模型每句最多读取 {0} 个词元</translation>
    </message>
    <message>
        <source>This model's task has no built-in examples</source>
        <translation>这个模型的任务没有内置例句</translation>
    </message>
    <message>
        <source>'{0}' is not in this model's vocabulary: the model reads it as {1}</source>
        <translation>“{0}”不在这个模型的词表中：模型把它读作 {1}</translation>
    </message>
    <message>
        <source>'{0}' is not in this model's target vocabulary: teacher forcing feeds it as {1}</source>
        <translation>“{0}”不在此模型的目标词表中：强制教学会以 {1} 输入它</translation>
    </message>
    <message>
        <source>Teacher forcing: each step feeds the reference's next token and shows what the model predicted instead.</source>
        <translation>强制教学：每一步输入参考译文的下一个词元，并显示模型本来预测的词元。</translation>
    </message>
    <message>
        <source>Teacher forcing, {0} steps: the model's most probable token was the gold one {1} times; mean loss {2:.3f} nats (-log p of the gold tokens); p(gold): {3}</source>
        <translation>强制教学，共 {0} 步：模型最可能的词元与参考词元一致 {1} 次；平均损失 {2:.3f} 奈特（参考词元的 -log p）；p(参考)：{3}</translation>
    </message>
</context>
<context>
    <name>StrategyEditor</name>
    <message>
        <source>greedy</source>
        <translation>贪心解码</translation>
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
        <source>transviz</source>
        <translation>transviz</translation>
    </message>
    <message>
        <source>as generate()</source>
        <translation>同 generate()</translation>
    </message>
    <message>
        <source>transviz: finished hypotheses keep their place among the best; as generate(): transformers' rule, which keeps as many unfinished ones and sets finished ones aside (a Hugging Face model then decodes as its generate(num_beams=width, length_penalty=...) does)</source>
        <translation>transviz：已结束的假设仍在最佳的几个之中占位；同 generate()：transformers 的规则，保留同样多个未结束的假设，把已结束的放到一边（这样 Hugging Face 模型的解码与其 generate(num_beams=宽度, length_penalty=...) 相同）</translation>
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
        <source>rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
</context>
<context>
    <name>StudentClass</name>
    <message>
        <source>Class</source>
        <translation>课堂</translation>
    </message>
    <message>
        <source>The address has no join code: type it after '#', as the teacher's screen shows it, or in the Code box.</source>
        <translation>地址里没有加入码：请按老师屏幕上显示的样子把它写在“#”后面，或填在“加入码”框里。</translation>
    </message>
    <message>
        <source>{0} is not a class's address: type it as the teacher's screen shows it, for example http://192.168.1.20:8338/#K7Q2MX</source>
        <translation>{0} 不是课堂的地址：请按老师屏幕上显示的样子输入，例如 http://192.168.1.20:8338/#K7Q2MX</translation>
    </message>
    <message>
        <source>Cannot reach the class at {0}: check the address, and that this computer is on the teacher's network.</source>
        <translation>无法连接到 {0} 的课堂：请检查地址，并确认这台电脑与老师在同一网络。</translation>
    </message>
    <message>
        <source>The teacher's model is {0}; this window's is another: the explorer does not follow (the panel does).</source>
        <translation>老师的模型是 {0}，这个窗口的模型不同：探索页不跟随（面板仍然跟随）。</translation>
    </message>
    <message>
        <source>The explorer cannot follow: {0}</source>
        <translation>探索页无法跟随：{0}</translation>
    </message>
    <message>
        <source>You are exploring on your own: F6 brings you back to the class.</source>
        <translation>你正在自己探索：按 F6 回到课堂。</translation>
    </message>
</context>
<context>
    <name>StudentPanel</name>
    <message>
        <source>Follow in the explorer</source>
        <translation>在探索页跟随</translation>
    </message>
    <message>
        <source>The explorer shows the teacher's sentence and step (when your model is the teacher's). Explore on your own at any time: F6 brings you back to the class</source>
        <translation>探索页显示老师的句子和步骤（当你的模型与老师的相同时）。你随时可以自己探索：按 F6 回到课堂</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Leave the class</source>
        <translation>离开课堂</translation>
    </message>
    <message>
        <source>In the class as {0}.</source>
        <translation>已以 {0} 的身份加入课堂。</translation>
    </message>
    <message>
        <source>The connection was lost: reconnecting (try {0})...</source>
        <translation>连接已断开：正在重新连接（第 {0} 次尝试）……</translation>
    </message>
    <message>
        <source>The class refused to let you in: {0}</source>
        <translation>课堂拒绝了你的加入：{0}</translation>
    </message>
    <message>
        <source>Joining the class...</source>
        <translation>正在加入课堂……</translation>
    </message>
    <message>
        <source>The teacher removed you from the class.</source>
        <translation>老师已把你移出课堂。</translation>
    </message>
    <message>
        <source>You joined this class again from another window or device: this one has left.</source>
        <translation>你已从另一个窗口或设备再次加入这个课堂：这里已离开。</translation>
    </message>
    <message>
        <source>The teacher ended the class.</source>
        <translation>老师已结束课堂。</translation>
    </message>
    <message>
        <source>You left the class.</source>
        <translation>你已离开课堂。</translation>
    </message>
    <message>
        <source>The class cannot be reached any more: check the network, then join again.</source>
        <translation>再也连接不到课堂：请检查网络，然后重新加入。</translation>
    </message>
    <message>
        <source>Too late: the question was closed before your answer arrived.</source>
        <translation>太晚了：你的答案到达之前，问题已经关闭。</translation>
    </message>
    <message>
        <source>Too many messages at once: wait a moment, then answer again.</source>
        <translation>一次发送的消息太多：请稍等片刻再作答。</translation>
    </message>
    <message>
        <source>The class did not take your last answer ({0}).</source>
        <translation>课堂没有接受你的上一个答案（{0}）。</translation>
    </message>
    <message>
        <source>the join code is wrong.</source>
        <translation>加入码错误。</translation>
    </message>
    <message>
        <source>that nickname is taken: choose another.</source>
        <translation>这个昵称已被使用：请换一个。</translation>
    </message>
    <message>
        <source>a nickname is 1 to 24 characters, without line breaks or control characters.</source>
        <translation>昵称为 1 到 24 个字符，不能有换行或控制字符。</translation>
    </message>
    <message>
        <source>the class is full.</source>
        <translation>课堂已满。</translation>
    </message>
    <message>
        <source>the teacher removed this nickname from the class.</source>
        <translation>老师已把这个昵称移出课堂。</translation>
    </message>
    <message>
        <source>too many wrong codes from this computer: wait a few minutes.</source>
        <translation>这台电脑输错加入码的次数太多：请等几分钟。</translation>
    </message>
    <message>
        <source>Waiting for the teacher's first step...</source>
        <translation>正在等待老师的第一步……</translation>
    </message>
    <message>
        <source>Sentence: {0}</source>
        <translation>句子：{0}</translation>
    </message>
    <message>
        <source>Output after step {0}: {1}</source>
        <translation>第 {0} 步之后的输出：{1}</translation>
    </message>
    <message>
        <source>Output: nothing yet (step {0})</source>
        <translation>输出：还没有（第 {0} 步）</translation>
    </message>
    <message>
        <source>The model's most probable next tokens at step {0}</source>
        <translation>第 {0} 步时模型最可能的下一个词元</translation>
    </message>
    <message>
        <source>No candidates shown now (a question may be open).</source>
        <translation>现在不显示候选（可能有问题尚未作答）。</translation>
    </message>
    <message>
        <source>The teacher's {0}, layer {1}: {2}</source>
        <translation>老师展示的{0}，第 {1} 层：{2}</translation>
    </message>
    <message>
        <source>Pre-test</source>
        <translation>课前测</translation>
    </message>
    <message>
        <source>Post-test</source>
        <translation>课后测</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>You did not answer. The answer: {0}</source>
        <translation>你没有作答。答案：{0}</translation>
    </message>
    <message>
        <source>Your answer is counted; you may change it until the teacher closes the question.</source>
        <translation>你的答案已计入；在老师关闭问题之前你可以更改。</translation>
    </message>
    <message>
        <source>Press 1-{0} or click a choice.</source>
        <translation>按 1-{0} 或点击一个选项。</translation>
    </message>
    <message>
        <source>The question is closed: wait for the answer.</source>
        <translation>问题已关闭：请等待答案。</translation>
    </message>
</context>
<context>
    <name>TabHelp</name>
    <message>
        <source>Row labels: input -&gt; written token
In every map rows are queries and columns are keys. In cross-attention and in the decoder's self-attention a row is labelled "input -&gt; written token", for example "to -&gt; drink": the decoder's input at that position (the token written one step before, or &lt;s&gt; at the start) and the token the model wrote from that row. The row's attention is what the model looked at to write the token after the arrow. In the encoder's self-attention rows and columns are the source tokens.</source>
        <translation>行标签：输入 -&gt; 写出的词元
在每张图中，行是查询，列是键。在交叉注意力和解码器自注意力中，每一行标为“输入 -&gt; 写出的词元”，例如“to -&gt; drink”：前者是解码器在该位置的输入（上一步写出的词元，开头时为 &lt;s&gt;），后者是模型从这一行写出的词元。这一行的注意力就是模型为写出箭头后的词元所看的地方。在编码器自注意力中，行和列都是源句子的词元。</translation>
    </message>
    <message>
        <source>Colours
A cell's colour is its attention weight on the colour bar's scale: dark is close to 0, bright close to the top of the bar (1, unless the colour bar names another scale).
Yellow chip: a word that is not in the model's vocabulary; the model reads it as &lt;unk&gt;.
Orange: the current query (its outlined row) and the current step's token.
Dashed chip: a token forced by you (clicked instead of the model's choice).
Hatched cells: masked (blocked) keys; the softmax gives them a weight of exactly 0.</source>
        <translation>颜色
格子的颜色表示它在颜色条刻度上的注意力权重：深色接近 0，亮色接近颜色条的顶端（即 1，除非颜色条标明了别的刻度）。
黄色词块：不在模型词表中的词，模型把它读作 &lt;unk&gt;。
橙色：当前查询（加框的那一行）和当前这一步的词元。
虚线词块：由你强制指定的词元（点选来代替模型的选择）。
斜线格：被掩码（阻止）的键；softmax 给它们的权重恰好为 0。</translation>
    </message>
    <message>
        <source>Summaries and rollout
The last column of the grid sums up each layer's heads. Mean of heads: the average map (rows still sum to 1). Max of heads: each cell the strongest head's weight (rows no longer sum to 1). Rollout (Abnar &amp; Zuidema, 2020) follows the information up through the layers: each layer's mean map A becomes 0.5·A + 0.5·I, because half of the signal bypasses attention through the residual connection; its rows are normalised to sum to 1 again; and the layers are multiplied from the bottom up, R_l = Â_l · R_(l-1). Row q of layer l then says how much of each input token reaches position q after layer l. For cross-attention, rollout follows the decoder: through its masked self-attention and, with half of the signal, its cross-attention into the encoder's rollout, so each row says how much of each source token reaches that decoder position.</source>
        <translation>汇总与注意力展开
网格的最后一列汇总每一层的各个头。各头平均：平均的注意力图（每行之和仍为 1）。各头最大：每个格子取最强的头的权重（每行之和不再为 1）。注意力展开（Abnar 与 Zuidema，2020）沿着各层向上追踪信息：每层的平均图 A 变为 0.5·A + 0.5·I，因为一半的信号经残差连接绕过了注意力；再把每行重新归一化为和为 1；然后自下而上把各层相乘，R_l = Â_l · R_(l-1)。于是第 l 层的第 q 行表示：经过第 l 层之后，每个输入词元有多少到达了位置 q。对交叉注意力，注意力展开沿解码器追踪：经过它的掩码自注意力，并以一半的信号经过它的交叉注意力进入编码器的注意力展开，于是每一行表示每个源词元有多少到达了这个解码器位置。</translation>
    </message>
    <message>
        <source>The logit lens
At the explorer's step, each decoder layer's output (its residual stream) is sent through the model's final norm, where it has one, and its output layer, as if that layer were the last: each row gives that layer's most probable next tokens, its own first choice in the row's name, coloured to the row's largest probability. The last row is the model's own distribution. Beside it, each cross-attention head's direct term in the written token's logit: its output carried along the residual path to that logit, the rest of the model frozen; the caption adds the other terms, which together make the logit.</source>
        <translation>logit 透镜
在探索页当前这一步，把每个解码器层的输出（它的残差流）送进模型的最终归一化（如果有的话）和输出层，就好像这一层是最后一层：每一行给出该层最可能的下一个词元，行名里是它自己的第一选择，颜色按该行的最大概率归一。最后一行就是模型自己的分布。旁边是每个交叉注意力头在所写词元 logit 中的直接项：它的输出沿残差路径一直送到这个 logit，模型其余部分保持冻结；说明文字再加上其他各项，它们合起来正好是这个 logit。</translation>
    </message>
    <message>
        <source>Heads that align
Every pair of the task's test split is read with its gold word alignments: at each target word, each cross-attention head (and each layer's mean map) chooses the source word it weighs most. The map gives each head's share of choices that are gold links; the caption names the best head and its alignment error rate (AER). Beside it, one test sentence under the best head: its choices that are gold links, the gold links it missed, and its choices that are not gold. For a model of subword pieces a word weighs the sum of its pieces.</source>
        <translation>对齐词语的头
任务测试集的每一对句子都带着标准词对齐来读：在每个目标词处，每个交叉注意力头（以及每层的平均图）选出它权重最大的源词。图中给出每个头的选择中是标准链接的比例；说明文字指出最好的头及其对齐错误率（AER）。旁边是最好的头在一个测试句上的表现：它选中且是标准链接的、它漏掉的标准链接，以及它选中但不是标准链接的。对由子词组成的模型，一个词的权重是它各个子词之和。</translation>
    </message>
    <message>
        <source>Activation patching
The second page runs sentence B again with one activation taken from sentence A: the encoder's stream at one source position after one layer, one cross-attention head's output, or the decoder's stream after one layer, at the chosen output step. Each cell says how far that one value moves B's output toward A's: the log-probability of A's token minus B's, scaled so that 0 is B's own run and 1 is A's. Both runs read A's output so far; positions need sentences of one length.</source>
        <translation>激活修补
第二页把句子 B 再运行一次，其中一个激活取自句子 A：编码器在某一层之后某个源语言位置上的残差流、某个交叉注意力头的输出，或解码器在某一层之后的残差流，都在所选的输出步上。每个格子说明这一个值把 B 的输出向 A 的输出移动了多少：A 的词元的对数概率减去 B 的，缩放到 0 是 B 自己的运行、1 是 A 的运行。两次运行都读 A 到目前为止的输出；按位置修补需要两个句子长度相同。</translation>
    </message>
    <message>
        <source>Sampling: temperature, top-k, top-p
The model gives every token of its vocabulary a score (a logit). The temperature divides the logits before the softmax: below 1 sharpens the distribution towards the most probable tokens, above 1 flattens it. Top-k keeps only the k most probable tokens (all: no limit). Top-p keeps the smallest set of most probable tokens whose probabilities add up to at least p (1: all). The kept probabilities are renormalised to sum to 1 and the token is drawn from them; a seed makes the draw repeatable. Greedy decoding always takes the most probable token.</source>
        <translation>采样：温度、top-k、top-p
模型给词表中的每个词元一个分数（logit）。在 softmax 之前把 logit 除以温度：小于 1 使分布更集中于最可能的词元，大于 1 使分布更平坦。Top-k 只保留最可能的 k 个词元（全部：不限制）。Top-p 保留概率之和至少达到 p 的最小的一组最可能的词元（1：全部）。保留下来的概率重新归一化为和为 1，再从中抽取词元；设定种子可以让抽取结果重现。贪心解码总是取最可能的词元。</translation>
    </message>
    <message>
        <source>Beam search and its scores
Beam search keeps the best partial translations (hypotheses), as many as its width, and extends each by every token at each step. A hypothesis's score is the sum of the natural log-probabilities of its tokens: negative, and closer to 0 means more probable. Hypotheses are ranked by that sum divided by length^penalty (the length penalty): 0 ranks by the sum itself, which favours short outputs; 1 ranks by the average log-probability per token. A hypothesis that writes &lt;/s&gt; is finished and keeps its score.</source>
        <translation>束搜索及其分数
束搜索在每一步保留若干个最好的部分译文（假设），个数等于束宽，并把每个假设用每个词元延长一步。假设的分数是其各词元的自然对数概率之和：为负数，越接近 0 表示越可能。假设按这个和除以 length^penalty（长度惩罚）来排序：惩罚为 0 时直接按和排序，偏向较短的输出；为 1 时按每个词元的平均对数概率排序。写出 &lt;/s&gt; 的假设即告完成，并保持它的分数。</translation>
    </message>
    <message>
        <source>Type a sentence and press Enter, then Space (or Step) to let the model write one token at a time.

The grid shows every layer (rows of tiles) and head (columns) of the chosen attention. In each tile a row is one query: the token that is looking (the decoder's input at that step, or a source token for the encoder); a column is one key: a token it may look at. A cell's colour is how much of its attention the query gives to that key. Every row sums to 1, because the softmax turns the row's scores into shares of one whole. The outlined row is the current step's query. The last column sums up each layer's heads (their mean, max, or the rollout through the layers).

Click a head to see it large with its tokens. The bars are the model's most probable next tokens at the last step: click one to make it write that token instead. Click an earlier output token to go back to it. In the decoder's self-attention the future is masked: hatched cells.

Test a claim: right-click a head to switch it off (its output zero, its mean, or uniform attention), let it use another head's pattern, tie its queries to its keys (Q = K), or scale its layer's scores. Drag along a row of the large head to paint where that query looks. The model decodes again at once: the bar above the grid lists what is changed (× removes one), edited heads are framed, and output tokens that changed are marked; their tooltip gives the unchanged model's token and how its log-probability moved. Ctrl+Z undoes a change, Ctrl+Shift+Z redoes it.</source>
        <translation>输入一个句子并按回车，然后按空格（或“单步”），让模型每次写出一个词元。

网格显示所选注意力的每一层（一行行小图）和每个头（列）。在每个小图中，一行是一个查询：正在“看”的词元（解码器在这一步的输入，或编码器的一个源语言词元）；一列是一个键：它可以看的词元。格子的颜色表示查询把多少注意力分给了这个键。每一行之和都为 1，因为 softmax 把这一行的分数变成了一个整体中的份额。带边框的行是当前这一步的查询。最后一列汇总每一层的各个头（平均值、最大值，或跨层的注意力展开）。

点击一个头可以放大查看它和它的词元。条形图是上一步中模型认为最可能的下一个词元：点击其中一个，让模型改写成这个词元。点击较早写出的词元可以回到那里。在解码器的自注意力中，未来被掩码遮住：显示为斜线格。

检验一个说法：右键单击一个头，可以关闭它（输出置零、取平均值，或均匀注意力），让它使用另一个头的注意力模式，让它的查询与键相同（Q = K），或缩放该层的分数。在大图中沿一行拖动，可以手绘这个查询看向哪里。模型会立即重新解码：网格上方的栏列出所有改动（× 删除一项），被修改的头带边框，改变了的输出词元会被标记；其提示说明未修改模型的词元，以及它的对数概率变化了多少。Ctrl+Z 撤销一次改动，Ctrl+Shift+Z 重做。</translation>
    </message>
    <message>
        <source>The table is the positional encoding PE that is added to the word embeddings, so that the model knows where each token stands. Each row is a position, each column a dimension. Column 2i is sin(pos / 10000^(2i/d_model)) and column 2i+1 the cosine of the same angle: low dimensions change fast from position to position, high ones slowly, like the hands of a clock.

The 'sin half | cos half' layout reorders the columns as in the seed's figure. The curves show a few dimensions across positions. PE·PEᵀ compares two positions: its value depends only on how far apart they are, which lets attention find relative positions.</source>
        <translation>这张表是位置编码 PE，它被加到词嵌入上，让模型知道每个词元所在的位置。每一行是一个位置，每一列是一个维度。第 2i 列为 sin(pos / 10000^(2i/d_model))，第 2i+1 列为同一角度的余弦：低维度随位置变化得快，高维度变化得慢，就像时钟的指针。

“前半 sin | 后半 cos”的排列方式按教程中的图重新排列各列。曲线显示几个维度随位置的变化。PE·PEᵀ 比较两个位置：它的值只取决于两个位置相距多远，这让注意力能够找到相对位置。</translation>
    </message>
    <message>
        <source>A mask says which key each query may attend to (True: a cell in the colour map's top colour, yellow by default) and which it may not (False: a light grey hatched cell, as masked cells are in every attention plot).

The padding mask hides the &lt;pad&gt; tokens that fill the shorter sentences of a batch; the sequence (causal) mask hides the future from the decoder, so that query t sees keys 0..t only. Decoder self-attention uses both combined. Blocked scores become -inf, so after the softmax their weight is 0 and every row still sums to 1.

The walkthrough shows one head's steps for one query: the raw scores Q·Kᵀ, scaled by 1/sqrt(d_k), masked, turned into weights by the softmax, and the output: the weights times the value vectors V.</source>
        <translation>掩码规定每个查询可以关注哪些键（True：用颜色映射最亮的颜色画出的格子，默认为黄色），不能关注哪些键（False：浅灰色的斜线格，和每张注意力图中被掩码的格子一样）。

填充掩码（padding mask）遮住用来补齐批次中较短句子的 &lt;pad&gt; 词元；序列（因果）掩码（sequence mask）对解码器遮住未来，使查询 t 只能看到键 0..t。解码器自注意力使用二者的组合。被掩码的分数变为 -inf，所以经过 softmax 后它们的权重为 0，每一行之和仍然为 1。

逐步演示展示一个头对一个查询的各个步骤：原始分数 Q·Kᵀ，乘以 1/sqrt(d_k) 缩放，加掩码，经 softmax 变成权重，以及输出：权重乘以值向量 V。</translation>
    </message>
    <message>
        <source>Choose a task and the model's size, then Start. The plots show the training loss of every batch, the validation loss and exact match at each validation, the learning rate (watch the warm-up: it climbs from 0 before it levels off or falls) and the share of target tokens predicted right.

Below, every layer and head of the probe sentence's attention: rows are queries, columns keys, each row sums to 1. Drag the timeline to go back to an earlier snapshot and watch the alignment form out of noise. When the run ends, 'Use in explorer' makes the trained model the window's model.</source>
        <translation>选择任务和模型大小，然后点“开始”。曲线显示每个批次的训练损失、每次验证时的验证损失和完全匹配率、学习率（注意预热：它先从 0 开始上升，然后保持或下降），以及预测正确的目标词元比例。

下方是探针句在每一层、每个头上的注意力：行是查询，列是键，每行之和为 1。拖动时间线可回到较早的快照，看对齐如何从噪声中形成。训练结束后，“在探索页使用”把训练好的模型设为窗口的模型。</translation>
    </message>
    <message>
        <source>The experiment of the seed tutorial: an encoder stack learns y = (a+1)^2 + b. Each row is one configuration; its test loss (half the mean squared error, the figure the tutorial's tables head "MSE") stands beside the value the tutorial published. Predicting the mean scores 3.5: a run that ends there learned nothing (marked stuck); a run whose loss blew up to NaN is marked diverged.

The plot overlays every run's training loss on a log scale: without warm-up, lr=1e-3 stays on the 3.5 line while the others fall. This is what the lab demonstrates: a Transformer is hard to train from scratch, and warm-up and a careful initialisation decide whether it learns at all. As in the tutorial's script, attention runs across the batch, not the sequence, and the element-wise task needs no attention: the lab measures optimisation, not what attention can do. The quick preset is shorter than the tutorial's runs, so its numbers differ.</source>
        <translation>种子教程中的实验：一个编码器堆栈学习 y = (a+1)^2 + b。每一行是一种配置；它的测试损失（均方误差的一半，即教程表格中标为“MSE”的数字）与教程公布的数值并列。预测均值得分 3.5：停在那里的运行什么也没学到（标为卡住）；损失爆炸成 NaN 的运行标为发散。

图中在对数刻度上叠加了每次运行的训练损失：没有预热时，lr=1e-3 一直停在 3.5 这条线上，而其他运行都在下降。这正是实验室要展示的：从零开始训练 Transformer 很难，预热和谨慎的初始化决定了它能否学到东西。与教程的脚本一样，注意力作用在批次上而不是序列上，而这个逐元素的任务根本不需要注意力：实验室衡量的是优化，而不是注意力能做什么。快速预设比教程的运行短，所以数字会不同。</translation>
    </message>
    <message>
        <source>Are all these heads needed? Measure switches every head of the loaded model off alone (its output set to zero) and scores the model on its task's test sentences: a map's cell is the score lost without that head, in points of exact match (or in nats of the reference tokens' log-probability). Most cells are near 0: one head alone is rarely missed.

The prune curve switches heads off one after another, least important first, and scores the model after each: it stays flat while redundant heads go, then falls. The text beside it counts the heads that can go before one point of exact match is lost. Without every cross-attention head the decoder no longer sees the source at all.

Click a head to switch it off in the explorer, and watch what changes in its translation.</source>
        <translation>这些头都是必需的吗？“测量”会单独关闭已加载模型的每个头（把它的输出置零），并在任务的测试句子上为模型评分：图中每个格子是去掉这个头后损失的分数，单位是完全匹配的百分点（或参考词元对数概率的奈特数）。大多数格子接近 0：单独少一个头，模型很少受影响。

剪枝曲线从最不重要的头开始，一个接一个地关闭，并在每次关闭后评分：冗余的头被关闭时曲线保持平坦，之后才下降。旁边的文字统计在损失一个百分点的完全匹配之前可以关闭多少个头。所有交叉注意力头都关闭后，解码器完全看不到源句。

点击一个头，就会在探索页中关闭它，看看译文有什么变化。</translation>
    </message>
    <message>
        <source>Pictures the tutorials describe in words, drawn from the loaded model's own weights for the explorer's sentence at its step: step in the explorer and come back to see the next token's. Choose a picture on the left; above it stand the tutorial's claim and what the picture shows. The attention kind and layer (and head, where a picture shows one head) choose what it is drawn from: the encoder's layers for encoder self-attention, the decoder's otherwise.</source>
        <translation>教程用文字描述的图，用已加载模型自己的权重、按探索页中的句子及其当前步绘制：在“探索”中前进一步再回来，就能看到下一个词元的图。在左边选择一张图；图的上方是教程的说法以及这张图显示的内容。注意力类型和层（以及只显示一个头的图中的头）决定图取自哪里：编码器自注意力取编码器的层，其他取解码器的层。</translation>
    </message>
    <message>
        <source>Two decoding runs side by side: a minimal pair of sentences ("ich möchte ein bier" and "ich möchte ein bier trinken"), or one sentence through two models (the loaded one, a shipped one, or a checkpoint file, such as one saved earlier in training). Each run is decoded greedily to its end. Choose the attention kind, the layer and a head or a summary of the layer's heads. Where the two maps have the same shape, the third map is B − A on a blue-white-red scale centred at 0, its range stated in its title; where they do not, it says why. Below, the two outputs as a token diff.</source>
        <translation>并排比较两次解码：一对最小差异的句子（"ich möchte ein bier" 和 "ich möchte ein bier trinken"），或同一个句子经过两个模型（已加载的模型、随附的模型，或一个检查点文件，例如训练早期保存的那个）。每次解码都用贪心策略一直解码到结束。选择注意力类型、层，以及一个头或该层各头的汇总。两张图形状相同时，第三张图是 B − A，用以 0 为中心的蓝-白-红色标绘制，标题中写明其范围；形状不同时，它会说明原因。下方是两个输出的词元级差异。</translation>
    </message>
    <message>
        <source>Two to four models decode one sentence side by side, a step at a time: Space steps every model that has not ended, Left goes back, Home starts again, End decodes to the end. The shipped siblings were trained on the same task as the 2017 default, each with one change: grouped-query (gqa) or multi-query (mqa) attention, rotary (rope) or ALiBi positions, a sliding window, pre-norm, or one decoder-only stack. Each model shows the same attention kind, layer and head on one colour scale, with its parameters, the bytes its KV cache holds now and adds per token, and its test exact match. The head buttons are framed by the keys and values they share: one frame per head for multi-head attention, one frame around all for multi-query. A decoder-only model has one self-attention map: its output rows are drawn whole, the source part left of the dashed line. Outputs that differ from the first model's are marked as in the Compare tab.</source>
        <translation>两到四个模型并排解码同一个句子，每次一步：空格让每个尚未结束的模型前进一步，← 后退，Home 从头开始，End 解码到底。随附的兄弟模型与 2017 年的默认模型在同一任务上训练，各自只改一处：分组查询（gqa）或多查询（mqa）注意力、旋转（rope）或 ALiBi 位置、滑动窗口、前置归一化（pre-norm），或只用一个解码器堆栈。每个模型用同一个色标显示同一种注意力、同一层和同一个头，并列出它的参数量、KV 缓存现有的字节数和每个词元增加的字节数，以及它在测试集上的完全匹配率。头按钮按共享的键和值加框：多头注意力每个头一个框，多查询注意力所有头一个框。仅解码器模型只有一张自注意力图：它的输出行整行画出，虚线左边是源句部分。与第一个模型输出不同的地方，按比较页的方式标出。</translation>
    </message>
    <message>
        <source>Two claims of the tutorial, computed live.

Why scale by 1/√d_k: q and k are random vectors of d_k entries drawn from N(0, 1). Their dot product q·k adds up d_k products, so its spread (standard deviation) grows as √d_k: the first plot. Fed to the softmax unscaled, such large scores give one key almost all the weight: the row's entropy falls towards 0 bits, and the softmax's gradient, the norm of its Jacobian diag(p) − ppᵀ, falls towards 0, so training can hardly change the scores. Divided by √d_k, the scores keep a spread of 1 at every d_k, and entropy and gradient stay. The curves are medians over many random rows; the circles mark the slider's d_k. On the right, the loaded model's real attention for one query with its scaling multiplied by a factor in one layer: 0 makes the row uniform, √d_k removes the 1/√d_k.

Why positions: 'Shuffle the source words' puts the sentence's tokens in a random order and runs the encoder again. With the positional encoding the attention changes. Without it (the NoPositions intervention) the shuffled map is the original one with its rows and columns reordered the same way: the largest difference is float rounding, about 1e-7. Attention alone sees a set of words, not a sequence.</source>
        <translation>教程中的两个论断，现场计算。

为什么要除以 √d_k 缩放：q 和 k 是 d_k 维的随机向量，元素取自 N(0, 1)。它们的点积 q·k 是 d_k 个乘积之和，所以它的离散程度（标准差）随 √d_k 增长：见第一张图。不缩放就送入 softmax，这么大的分数会把几乎全部权重分给一个键：这一行的熵降向 0 比特，softmax 的梯度（其雅可比矩阵 diag(p) − ppᵀ 的范数）也降向 0，训练几乎无法再改变这些分数，即进入了梯度平缓区。除以 √d_k 后，分数在任何 d_k 下的离散程度都保持为 1，熵和梯度也得以保留。曲线是许多随机行的中位数；圆圈标出滑块所选的 d_k。右侧是已加载模型对一个查询的真实注意力，其中某一层的缩放乘以一个系数：系数 0 使这一行变为均匀分布，√d_k 则去掉了 1/√d_k。

为什么需要位置：“打乱源句单词”把句子的词元随机重排，再运行一次编码器。有位置编码时，注意力会改变。没有位置编码时（NoPositions 干预），打乱后的注意力图就是原图的行和列按同样方式重排的结果：最大差值只是浮点舍入误差，约 1e-7。仅靠注意力，模型看到的是一组单词，而不是一个序列。</translation>
    </message>
    <message>
        <source>A live class: File &gt; Start a class serves this window's explorer on the local network (port 8338: open it on the firewall). Students open the join address in a browser, or scan the QR code, or use File &gt; Join a class in transviz, and type the code and a nickname. They follow what the explorer shows (sentence, output, candidates, the head shown large, a lesson's caption). Each quiz question of the explorer or of a lesson slide is asked to the class too, in English and Chinese: the chart counts the answers without marking the right one; Reveal (here or in the explorer) marks it and tells each student whether they were right. Choose pre-test or post-test before a lesson's questions to compare the two; Export answers writes them as CSV, and nothing about the students is written anywhere else. Stop the class, or close the window, and the server stops listening.</source>
        <translation>实时课堂：“文件 &gt; 开始课堂”在局域网上提供这个窗口的探索页（端口 8338：请在防火墙上放行）。学生在浏览器中打开加入地址，或扫描二维码，或在 transviz 中使用“文件 &gt; 加入课堂”，然后输入加入码和昵称。他们跟随探索页显示的内容（句子、输出、候选、放大显示的头、课程的说明文字）。探索页或课程幻灯片的每个测验问题也会用英文和中文发给全班：图表统计答案，但不标出正确答案；“揭晓答案”（在这里或探索页）会标出它，并告诉每个学生是否答对。在一节课的问题之前选择课前测或课后测，以便比较两者；“导出答案”把答案写成 CSV，关于学生的任何信息都不会写到别处。结束课堂或关闭窗口后，服务器就停止监听。</translation>
    </message>
</context>
<context>
    <name>TeacherClass</name>
    <message>
        <source>Class</source>
        <translation>课堂</translation>
    </message>
    <message>
        <source>Could not start the class</source>
        <translation>无法开始课堂</translation>
    </message>
    <message>
        <source>The port is in use</source>
        <translation>端口已被占用</translation>
    </message>
    <message>
        <source>Port {0} is in use on this computer (another class, or another program). Start the class on another port? Students then type the address the join window shows; a firewall may have to let that port in too.</source>
        <translation>这台电脑上的端口 {0} 已被占用（另一个课堂或另一个程序）。要在另一个端口上开始课堂吗？学生随后输入加入窗口显示的地址；防火墙可能也要放行那个端口。</translation>
    </message>
    <message>
        <source>The class has ended. Export the answers now if you want them: they are not kept once another class starts.</source>
        <translation>课堂已结束。如果需要答案，请现在导出：开始另一个课堂后它们不会被保留。</translation>
    </message>
    <message>
        <source>Export the class's answers</source>
        <translation>导出课堂的答案</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Could not export the answers</source>
        <translation>无法导出答案</translation>
    </message>
</context>
<context>
    <name>TrainingForm</name>
    <message>
        <source>auto: {0}</source>
        <translation>自动：{0}</translation>
    </message>
    <message>
        <source>your TSV file (source&lt;TAB&gt;target)</source>
        <translation>你的 TSV 文件（源句&lt;TAB&gt;目标句）</translation>
    </message>
    <message>
        <source>choose or drop a .tsv file</source>
        <translation>选择或拖入一个 .tsv 文件</translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>the task's first example</source>
        <translation>任务的第一个例句</translation>
    </message>
    <message>
        <source>The sentence whose attention is shown as training goes on</source>
        <translation>训练过程中显示其注意力的句子</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Corpus</source>
        <translation>语料</translation>
    </message>
    <message>
        <source>Probe sentence</source>
        <translation>探针句</translation>
    </message>
    <message>
        <source>post-LN (the paper)</source>
        <translation>后置 LN（论文）</translation>
    </message>
    <message>
        <source>pre-LN (steadier training)</source>
        <translation>前置 LN（训练更稳定）</translation>
    </message>
    <message>
        <source>one per head</source>
        <translation>每个头一个</translation>
    </message>
    <message>
        <source>Heads of keys and values, each shared by a group of query heads: 1 is multi-query attention, fewer than the heads grouped-query; the KV cache shrinks by the same factor</source>
        <translation>键和值的头数，每个由一组查询头共享：1 是多查询注意力（MQA），少于头数是分组查询注意力（GQA）；KV 缓存按同样的倍数缩小</translation>
    </message>
    <message>
        <source>sine table (the paper)</source>
        <translation>正弦表（论文中的）</translation>
    </message>
    <message>
        <source>learned table</source>
        <translation>学习得到的表</translation>
    </message>
    <message>
        <source>rotary (RoPE)</source>
        <translation>旋转位置编码（RoPE）</translation>
    </message>
    <message>
        <source>ALiBi distance bias</source>
        <translation>ALiBi 距离偏置</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>T5's relative buckets</source>
        <translation>T5 的相对位置桶</translation>
    </message>
    <message>
        <source>How the model knows word order: a table added to the embeddings, or inside self-attention (rotary turns queries and keys by their position; ALiBi subtracts a slope times the distance from each score)</source>
        <translation>模型如何知道词序：在嵌入上加一张表，或者在自注意力内部（旋转位置编码按位置旋转查询和键；ALiBi 从每个分数中减去斜率乘以距离）</translation>
    </message>
    <message>
        <source>LayerNorm (the paper)</source>
        <translation>层归一化（论文中的）</translation>
    </message>
    <message>
        <source>RMSNorm (no mean taken away, no bias)</source>
        <translation>RMSNorm（不减去均值，没有偏置）</translation>
    </message>
    <message>
        <source>encoder and decoder (the paper)</source>
        <translation>编码器和解码器（论文）</translation>
    </message>
    <message>
        <source>decoder-only, prefix LM</source>
        <translation>仅解码器，前缀语言模型</translation>
    </message>
    <message>
        <source>decoder-only, causal</source>
        <translation>仅解码器，因果</translation>
    </message>
    <message>
        <source>Decoder-only: one stack reads the source, the start token and the translation as one stream and translates by continuing it; in a prefix LM the source's words see each other both ways</source>
        <translation>仅解码器：一个层栈把源句、起始词元和译文当作一条序列读取，通过续写来翻译；在前缀语言模型中，源句的词彼此双向可见</translation>
    </message>
    <message>
        <source>every key</source>
        <translation>所有键</translation>
    </message>
    <message>
        <source>Sliding-window self-attention: a query sees only keys fewer than this many positions away (in the decoder the last ones, itself included)</source>
        <translation>滑动窗口自注意力：查询只能看到距离小于这个位置数的键（在解码器中是最近的这些键，包括它自己）</translation>
    </message>
    <message>
        <source>one embedding table for both sides</source>
        <translation>两侧共用一张嵌入表</translation>
    </message>
    <message>
        <source>One joint vocabulary and embedding table for source and target</source>
        <translation>源语言和目标语言共用一个词表和一张嵌入表</translation>
    </message>
    <message>
        <source>output layer = target embedding</source>
        <translation>输出层 = 目标语言嵌入</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Layers (each side)</source>
        <translation>层数（每侧）</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>Key/value heads</source>
        <translation>键/值头数</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <source>d_ff</source>
        <translation>d_ff</translation>
    </message>
    <message>
        <source>Dropout</source>
        <translation>Dropout</translation>
    </message>
    <message>
        <source>Norm placement</source>
        <translation>归一化位置</translation>
    </message>
    <message>
        <source>Norm kind</source>
        <translation>归一化方式</translation>
    </message>
    <message>
        <source>Positions</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>Attention window</source>
        <translation>注意力窗口</translation>
    </message>
    <message>
        <source>Weight sharing</source>
        <translation>权重共享</translation>
    </message>
    <message>
        <source>constant</source>
        <translation>恒定</translation>
    </message>
    <message>
        <source>linear warm-up, then constant</source>
        <translation>线性预热，然后恒定</translation>
    </message>
    <message>
        <source>warm-up, then linear decay to 0</source>
        <translation>预热，然后线性衰减到 0</translation>
    </message>
    <message>
        <source>noam (the paper; lr is a scale factor)</source>
        <translation>noam（论文；学习率是缩放系数）</translation>
    </message>
    <message>
        <source>std or half-width</source>
        <translation>标准差或半宽</translation>
    </message>
    <message>
        <source>Optimiser (Adam)</source>
        <translation>优化器（Adam）</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Schedule</source>
        <translation>调度</translation>
    </message>
    <message>
        <source>Warm-up steps</source>
        <translation>预热步数</translation>
    </message>
    <message>
        <source>Label smoothing</source>
        <translation>标签平滑</translation>
    </message>
    <message>
        <source>Batch size (sentences)</source>
        <translation>批大小（句子数）</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Initialisation</source>
        <translation>初始化</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从不</translation>
    </message>
    <message>
        <source>at the end only</source>
        <translation>仅在结束时</translation>
    </message>
    <message>
        <source>Watching</source>
        <translation>观察</translation>
    </message>
    <message>
        <source>Attention every (steps)</source>
        <translation>注意力快照间隔（步）</translation>
    </message>
    <message>
        <source>Validate every (steps)</source>
        <translation>验证间隔（步）</translation>
    </message>
    <message>
        <source>Save every (steps)</source>
        <translation>保存间隔（步）</translation>
    </message>
    <message>
        <source>Choose a corpus</source>
        <translation>选择语料</translation>
    </message>
    <message>
        <source>Sentence pairs (*.tsv *.txt)</source>
        <translation>句对 (*.tsv *.txt)</translation>
    </message>
    <message>
        <source>{0} must be a number (like 1e-3), not '{1}'</source>
        <translation>{0}必须是数字（如 1e-3），而不是“{1}”</translation>
    </message>
    <message>
        <source>the initialisation scale</source>
        <translation>初始化的尺度</translation>
    </message>
    <message>
        <source>the learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>choose a TSV file of sentence pairs (or drop one on this tab)</source>
        <translation>请选择一个句对 TSV 文件（或把文件拖到这一页）</translation>
    </message>
</context>
<context>
    <name>TrainingPanel</name>
    <message>
        <source>{0} h {1:02d} min</source>
        <translation>{0} 小时 {1:02d} 分</translation>
    </message>
    <message>
        <source>{0} min {1:02d} s</source>
        <translation>{0} 分 {1:02d} 秒</translation>
    </message>
    <message>
        <source>{0} s</source>
        <translation>{0} 秒</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Use in explorer</source>
        <translation>在探索页使用</translation>
    </message>
    <message>
        <source>Save as...</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <source>Open timeline...</source>
        <translation>打开时间线…</translation>
    </message>
    <message>
        <source>Make the trained model the explorer's model (a copy)</source>
        <translation>把训练好的模型设为探索页的模型（一份副本）</translation>
    </message>
    <message>
        <source>Scrub the attention snapshots saved in a checkpoint</source>
        <translation>浏览检查点中保存的注意力快照</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>cross-entropy</source>
        <translation>交叉熵</translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>fraction right</source>
        <translation>正确比例</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>lr</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>validation loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <source>token accuracy (batch)</source>
        <translation>词元准确率（批次）</translation>
    </message>
    <message>
        <source>exact match (validation)</source>
        <translation>完全匹配率（验证）</translation>
    </message>
    <message>
        <source>learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>loading the data and building the model...</source>
        <translation>正在加载数据并构建模型…</translation>
    </message>
    <message>
        <source>pausing after this batch...</source>
        <translation>本批次结束后暂停…</translation>
    </message>
    <message>
        <source>stopping after this batch and saving...</source>
        <translation>本批次结束后停止并保存…</translation>
    </message>
    <message>
        <source>this run</source>
        <translation>本次训练</translation>
    </message>
    <message>
        <source>step {0:,} of {1:,}</source>
        <translation>第 {0:,} 步，共 {1:,} 步</translation>
    </message>
    <message>
        <source>probe: {0} (teacher forced on its translation in the data: {1})</source>
        <translation>探针句：{0}（用数据中的译文做强制教学：{1}）</translation>
    </message>
    <message>
        <source>probe: {0} (not in the data: the model's own output is shown)</source>
        <translation>探针句：{0}（不在数据中：显示模型自己的输出）</translation>
    </message>
    <message>
        <source>{0}; {1:,} parameters on {2}</source>
        <translation>{0}；{1:,} 个参数，在 {2} 上</translation>
    </message>
    <message>
        <source>paused at step {0:,} of {1:,}</source>
        <translation>暂停于第 {0:,} 步，共 {1:,} 步</translation>
    </message>
    <message>
        <source>step {0:,} of {1:,} · {2:,.0f} tokens/s · ETA {3}</source>
        <translation>第 {0:,} 步，共 {1:,} 步 · 每秒 {2:,.0f} 个词元 · 预计还需 {3}</translation>
    </message>
    <message>
        <source>{0} after {1:,} steps in {2} on {3}</source>
        <translation>{0}：{1:,} 步，用时 {2}，在 {3} 上</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>diverged</source>
        <translation>已发散</translation>
    </message>
    <message>
        <source>Stopped after {0:,} of {1:,} steps.</source>
        <translation>在第 {0:,} 步停止（共 {1:,} 步）。</translation>
    </message>
    <message>
        <source>Finished {0:,} steps.</source>
        <translation>完成了 {0:,} 步。</translation>
    </message>
    <message>
        <source>, BLEU {0:.1f}</source>
        <translation>，BLEU {0:.1f}</translation>
    </message>
    <message>
        <source>Test: exact match {0:.1%} of {1} pairs{2}.</source>
        <translation>测试：{1} 个句对的完全匹配率 {0:.1%}{2}。</translation>
    </message>
    <message>
        <source>Last validation: exact match {0:.1%}.</source>
        <translation>最近一次验证：完全匹配率 {0:.1%}。</translation>
    </message>
    <message>
        <source>Saved to {0}</source>
        <translation>已保存到 {0}</translation>
    </message>
    <message>
        <source>Nothing was saved.</source>
        <translation>没有保存任何内容。</translation>
    </message>
    <message>
        <source>unexpected error: {0}</source>
        <translation>意外错误：{0}</translation>
    </message>
    <message>
        <source>could not train</source>
        <translation>无法训练</translation>
    </message>
    <message>
        <source>Training: {0}</source>
        <translation>训练：{0}</translation>
    </message>
    <message>
        <source>The trained model is now the explorer's model</source>
        <translation>训练好的模型现在是探索页的模型</translation>
    </message>
    <message>
        <source>saved to {0}</source>
        <translation>已保存到 {0}</translation>
    </message>
    <message>
        <source>Could not save: {0}</source>
        <translation>无法保存：{0}</translation>
    </message>
    <message>
        <source>Save the trained model</source>
        <translation>保存训练好的模型</translation>
    </message>
    <message>
        <source>transviz checkpoints (*.safetensors)</source>
        <translation>transviz 检查点 (*.safetensors)</translation>
    </message>
    <message>
        <source>Timeline: {0}</source>
        <translation>时间线：{0}</translation>
    </message>
    <message>
        <source>Timeline: {0} holds no attention snapshots</source>
        <translation>时间线：{0} 中没有注意力快照</translation>
    </message>
    <message>
        <source>saved in {0}</source>
        <translation>保存在 {0}</translation>
    </message>
    <message>
        <source>saved in {0}, which recorded no training curves</source>
        <translation>保存在 {0} 中，该文件没有记录训练曲线</translation>
    </message>
    <message>
        <source>Open a checkpoint's timeline</source>
        <translation>打开检查点的时间线</translation>
    </message>
    <message>
        <source>{0} recorded no training curves: its snapshots are not shown without them</source>
        <translation>{0} 没有记录训练曲线：没有曲线时不显示它的快照</translation>
    </message>
    <message>
        <source>Training is running</source>
        <translation>正在训练</translation>
    </message>
    <message>
        <source>A model is being trained. Stop the training and close transviz?

The model trained so far will be saved to:
{0}</source>
        <translation>正在训练一个模型。停止训练并关闭 transviz 吗？

目前训练好的模型将保存到：
{0}</translation>
    </message>
    <message>
        <source>Stop training and close</source>
        <translation>停止训练并关闭</translation>
    </message>
    <message>
        <source>Stopping the training and saving to {0}...</source>
        <translation>正在停止训练并保存到 {0}…</translation>
    </message>
</context>
<context>
    <name>VariantsPanel</name>
    <message>
        <source>Reset (Home)</source>
        <translation>重置（Home）</translation>
    </message>
    <message>
        <source>Back (←)</source>
        <translation>后退（←）</translation>
    </message>
    <message>
        <source>Step all (Space)</source>
        <translation>全部单步（空格）</translation>
    </message>
    <message>
        <source>To the end (End)</source>
        <translation>到结尾（End）</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Models:</source>
        <translation>模型数：</translation>
    </message>
    <message>
        <source>Attention:</source>
        <translation>注意力：</translation>
    </message>
    <message>
        <source>Layer:</source>
        <translation>层：</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>Hidden until you answer: a quiz's question is open in the Explorer, and stepping here would give the answer away. Reveal it there (Enter) to see the models side by side.</source>
        <translation>回答前隐藏：探索页中有一道测验题尚未回答，在这里单步会泄露答案。在那里揭晓答案（Enter）后即可看到并排的模型。</translation>
    </message>
    <message>
        <source>Step {0}. One colour scale for every model: 0 to {1:.2f}, the largest weight shown.</source>
        <translation>第 {0} 步。所有模型共用一个色标：0 到 {1:.2f}，即图中最大的权重。</translation>
    </message>
    <message>
        <source>The decoder has not run yet: press Step all (Space).</source>
        <translation>解码器还没有运行：请按“全部单步（空格）”。</translation>
    </message>
    <message>
        <source>keys: source tokens, then the output's (columns)</source>
        <translation>键：先是源语言词元，再是输出的词元（列）</translation>
    </message>
    <message>
        <source>{0}: one map, source | output</source>
        <translation>{0}：同一张图，源句 | 输出</translation>
    </message>
    <message>
        <source>{0} ({1})</source>
        <translation>{0}（{1}）</translation>
    </message>
    <message>
        <source> (ended)</source>
        <translation>（已结束）</translation>
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
    <message>
        <source>&amp;Zoom in on plots and grids</source>
        <translation>放大图表和网格(&amp;Z)</translation>
    </message>
    <message>
        <source>Zoom &amp;out of plots and grids</source>
        <translation>缩小图表和网格(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Reset the zoom</source>
        <translation>恢复原始大小(&amp;R)</translation>
    </message>
</context>
<context>
    <name>WhyPanel</name>
    <message>
        <source>Why scale</source>
        <translation>为什么要缩放</translation>
    </message>
    <message>
        <source>Why positions</source>
        <translation>为什么需要位置</translation>
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
    <message>
        <source>Export as PNG...</source>
        <translation>导出为 PNG…</translation>
    </message>
    <message>
        <source>Export as SVG...</source>
        <translation>导出为 SVG…</translation>
    </message>
</context>
</TS>