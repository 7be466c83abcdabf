package trainer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/dablot-zero/dablot/net"
)

// Trainer checkpoint format: the model file layout (see ModelFormat) with
// format CheckpointFormat. Besides the weights, under their TensorSpecs
// names, it holds Adam's first and second moments of every parameter
// tensor under "adam_m/<name>" and "adam_v/<name>", the number of steps
// taken (MetaStep) and the TrainConfig as JSON (MetaTrainConfig). The
// reserved metadata keys of model files apply too, including the checksum.
const (
	CheckpointFormat        = net.CheckpointFormat // value of metadata "format"
	CheckpointFormatVersion = 1                    // value of metadata "format_version"
)

// Metadata keys written by SaveCheckpoint in addition to those of Save;
// callers cannot set them.
const (
	MetaTrainConfig = "train_config"
	MetaStep        = "step"
)

// Tensor name prefixes of the Adam moments in a checkpoint.
const (
	adamMPrefix = "adam_m/"
	adamVPrefix = "adam_v/"
)

var checkpointKind = net.FileKind{What: "checkpoint", Format: CheckpointFormat, Version: CheckpointFormatVersion, MaxBytes: net.MaxCheckpointBytes,
	Reserved: []string{net.MetaFormat, net.MetaVersion, net.MetaArchitecture, net.MetaChecksum, MetaTrainConfig, MetaStep}}

// TrainConfig returns the optimiser settings in use.
func (t *Trainer) TrainConfig() TrainConfig { return t.tc }

// SetLearningRate sets the peak learning rate of the steps to come, the
// schedule's base (TrainConfig.LearningRate), as LoadTrainer may: when the
// rate changes is the caller's decision. A rate that TrainConfig.Validate
// refuses is refused, and the trainer is left as it was.
func (t *Trainer) SetLearningRate(lr float64) error {
	tc := t.tc
	tc.LearningRate = lr
	if err := tc.Validate(); err != nil {
		return err
	}
	t.tc = tc
	return nil
}

// SaveCheckpoint writes everything needed to continue training exactly
// where it stands: the weights, Adam's moments, the step counter and the
// TrainConfig, with the caller's metadata entries (which may not use the
// reserved keys). The file is written atomically like Save's.
func (t *Trainer) SaveCheckpoint(path string, meta map[string]string) error {
	buf, err := t.encodeCheckpoint(meta)
	if err != nil {
		return err
	}
	return net.WriteAtomic(path, buf)
}

func (t *Trainer) encodeCheckpoint(meta map[string]string) ([]byte, error) {
	tcj, err := json.Marshal(t.tc)
	if err != nil {
		return nil, err
	}
	tensors := t.exportTensors(stateWeights, "")
	tensors = append(tensors, t.exportTensors(stateAdamM, adamMPrefix)...)
	tensors = append(tensors, t.exportTensors(stateAdamV, adamVPrefix)...)
	extra := map[string]string{MetaTrainConfig: string(tcj), MetaStep: strconv.Itoa(t.step)}
	return net.EncodeFile(checkpointKind, t.topo, t.cfg, tensors, meta, extra)
}

// LoadTrainer rebuilds a Trainer from a checkpoint written by
// SaveCheckpoint for topo, so that continuing training gives exactly the
// weights that uninterrupted training would have given. It also returns
// every metadata entry of the file, including the reserved ones.
//
// tc is the configuration to continue with. It may differ from the saved
// one (available as the MetaTrainConfig entry) only in the learning-rate
// schedule: LearningRate, Schedule, WarmupSteps, TotalSteps, StepEvery,
// StepGamma and MinLRFraction; the schedule is evaluated at the saved step
// count, so changing it is the caller's decision. A different BatchSize,
// WeightDecay, ValueWeight, Beta1, Beta2 or Epsilon is refused, as is a
// truncated or corrupted file or one written for another board.
func LoadTrainer(path string, topo *net.Topology, tc TrainConfig) (*Trainer, map[string]string, error) {
	buf, err := checkpointKind.Read(path)
	if err != nil {
		return nil, nil, fmt.Errorf("net: load checkpoint: %w", err)
	}
	t, meta, err := decodeCheckpoint(buf, topo, tc)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return t, meta, nil
}

func decodeCheckpoint(buf []byte, topo *net.Topology, tc TrainConfig) (*Trainer, map[string]string, error) {
	if topo == nil {
		return nil, nil, fmt.Errorf("net: load checkpoint: no topology given")
	}
	if err := tc.Validate(); err != nil {
		return nil, nil, err
	}
	f, err := net.DecodeFile(buf, checkpointKind, func(map[string]string) (net.Expect, error) { return net.Expect{Topology: topo}, nil })
	if err != nil {
		return nil, nil, err
	}
	var saved TrainConfig
	dec := json.NewDecoder(bytes.NewReader([]byte(f.Meta[MetaTrainConfig])))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&saved); err != nil {
		return nil, nil, fmt.Errorf("net: load checkpoint: bad %s metadata: %v", MetaTrainConfig, err)
	}
	if err := compatibleTrainConfig(saved, tc); err != nil {
		return nil, nil, err
	}
	step, err := strconv.Atoi(f.Meta[MetaStep])
	if err != nil || step < 0 {
		return nil, nil, fmt.Errorf("net: load checkpoint: bad %s metadata %q", MetaStep, f.Meta[MetaStep])
	}
	w, err := f.Weights("")
	if err != nil {
		return nil, nil, err
	}
	m, err := f.Weights(adamMPrefix)
	if err != nil {
		return nil, nil, err
	}
	v, err := f.Weights(adamVPrefix)
	if err != nil {
		return nil, nil, err
	}
	if err := f.Done(); err != nil {
		return nil, nil, err
	}
	for _, tt := range v.Tensors {
		for _, x := range tt.Data {
			if !(x >= 0) {
				return nil, nil, fmt.Errorf("net: load checkpoint: second moment of %s has the invalid value %v", tt.Name, x)
			}
		}
	}
	t, err := NewTrainer(topo, w, tc)
	if err != nil {
		return nil, nil, err
	}
	t.importTensors(stateAdamM, m.Tensors)
	t.importTensors(stateAdamV, v.Tensors)
	t.step = step
	return t, f.Meta, nil
}

// compatibleTrainConfig refuses a continuation config that changes more
// than the learning-rate schedule.
func compatibleTrainConfig(saved, tc TrainConfig) error {
	for _, c := range []struct {
		name      string
		old, next float64
	}{
		{"BatchSize", float64(saved.BatchSize), float64(tc.BatchSize)},
		{"WeightDecay", saved.WeightDecay, tc.WeightDecay},
		{"ValueWeight", saved.ValueWeight, tc.ValueWeight},
		{"ScoreWeight", saved.ScoreWeight, tc.ScoreWeight},
		{"ShortTermWeight", saved.ShortTermWeight, tc.ShortTermWeight},
		{"OwnershipWeight", saved.OwnershipWeight, tc.OwnershipWeight},
		{"Beta1", saved.Beta1, tc.Beta1},
		{"Beta2", saved.Beta2, tc.Beta2},
		{"Epsilon", saved.Epsilon, tc.Epsilon},
	} {
		if c.old != c.next {
			return fmt.Errorf("net: load checkpoint: train config %s is %v in the checkpoint but %v now; only the learning-rate schedule may change", c.name, c.old, c.next)
		}
	}
	return nil
}
